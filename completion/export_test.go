package completion

// The unexported constants that the external tests name.
const (
	RestartTruncation = restartTruncation
	TrimFloorExact    = trimFloorExact
)
