module github.com/scaledsm/scaledsm/internal/kernel/_asm

go 1.26
