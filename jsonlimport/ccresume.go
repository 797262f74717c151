package jsonlimport

// ccCache holds Claude Code parse states between imports (see ccresume).
type ccCache struct{}
