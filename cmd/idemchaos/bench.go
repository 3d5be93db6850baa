package main

import (
	"context"
	"io"
)

// cmdBench measures each strategy's cost under an open-model load.
func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return usageErrorf("bench: not built yet")
}
