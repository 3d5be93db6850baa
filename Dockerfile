# idemchaos as a container image (docs/ci.md).
# Build from the repository root:
#   docker build -t idemchaos/idemchaos:local .                # the CLI with Redis and PostgreSQL inside
#   docker build --target slim -t idemchaos/idemchaos:slim .   # the CLI alone, for external stores
# Run:
#   docker run --rm idemchaos/idemchaos:local matrix           # starts its own Redis and Postgres in the container
#   docker run --rm -v idemchaos-results:/results idemchaos/idemchaos:local matrix --seeds 5 --out /results/run
#   docker run --rm idemchaos/idemchaos:slim matrix --redis-url redis://HOST:6379/0 --postgres-url postgres://USER@HOST:5432/postgres
# Both run as the unprivileged user 10001: PostgreSQL refuses to run as root.

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/idemchaos ./cmd/idemchaos

# The CLI alone: --redis-url/--postgres-url (or IDEMCHAOS_REDIS_URL and
# IDEMCHAOS_POSTGRES_URL) for a matrix, nothing for a user's service.
FROM gcr.io/distroless/static-debian12 AS slim
COPY --from=build /out/idemchaos /usr/local/bin/idemchaos
USER 10001:10001
ENTRYPOINT ["/usr/local/bin/idemchaos"]
CMD ["help"]

# The default target: the CLI with Debian's redis-server and PostgreSQL, which
# idemchaos starts itself (as user 10001) on loopback in a throwaway directory
# under /tmp. No cluster is created at install time.
FROM debian:bookworm-slim AS full
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates postgresql-common \
 && sed -ri 's/^#?(create_main_cluster) .*$/\1 = false/' /etc/postgresql-common/createcluster.conf \
 && apt-get install -y --no-install-recommends redis-server postgresql-15 \
 && rm -rf /var/lib/apt/lists/*
RUN useradd --uid 10001 --user-group --create-home --shell /usr/sbin/nologin idemchaos \
 && install -d -o 10001 -g 10001 /results
# idemchaos reads PG_BINDIR for the directory of initdb and postgres.
ENV PG_BINDIR=/usr/lib/postgresql/15/bin
COPY --from=build /out/idemchaos /usr/local/bin/idemchaos
USER 10001:10001
WORKDIR /home/idemchaos
ENTRYPOINT ["/usr/local/bin/idemchaos"]
CMD ["matrix"]
