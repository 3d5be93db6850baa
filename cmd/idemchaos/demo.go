package main

import (
	"context"
	"io"
)

// cmdDemo narrates a forced interleaving step by step.
func cmdDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return usageErrorf("demo: not built yet")
}
