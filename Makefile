# The two quick-start commands: `make matrix` and `make test`. Both install
# redis-server and PostgreSQL when missing (scripts/setup); idemchaos then
# starts and stops its own throwaway servers.
SEEDS ?= 1

.PHONY: matrix test check setup build

matrix: setup
	go run ./cmd/idemchaos matrix --seeds $(SEEDS)

test: setup check
	go test -race -count=1 ./...

check:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	go vet ./...

build:
	go build -o bin/idemchaos ./cmd/idemchaos

setup:
	@scripts/setup
