package scaledsm

// The unexported constants that the external tests name.
const DefaultPlateauWindow = defaultPlateauWindow
