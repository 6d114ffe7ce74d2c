package scaledsm

// The unexported constants that the external tests name.
const (
	RestartTrim          = restartTrim
	TrimFloorExact       = trimFloorExact
	DefaultPlateauWindow = defaultPlateauWindow
)
