module github.com/scaledsm/scaledsm

go 1.26

require (
	github.com/sbinet/npyio v0.6.0
	gonum.org/v1/gonum v0.17.0
)
