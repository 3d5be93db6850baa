# paymentd, the idemchaos payment API, as a container (see docker-compose.yml).
# Build from the repository root:
#   docker build -f docker/paymentd.Dockerfile -t idemchaos/paymentd .

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/paymentd ./cmd/paymentd

# alpine rather than distroless: busybox wget runs the compose healthcheck.
FROM alpine:3.20
RUN adduser -D -H -u 10001 paymentd
COPY --from=build /out/paymentd /usr/local/bin/paymentd
USER paymentd
EXPOSE 8080
# The stores come from flags: paymentd --strategy S --listen 0.0.0.0:8080 --redis-url ... --postgres-url ...
CMD ["paymentd", "-h"]
