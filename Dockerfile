# syntax=docker/dockerfile:1
#
# The ledger service image: `ledger` built from ./cmd/ledger with cgo (the
# SQLite projections use github.com/mattn/go-sqlite3), run on a slim Debian
# of the same release as the builder, so the glibc it links against is there.
# docker-compose.yml builds it; see docs/deploy.md.

# ---- build ----------------------------------------------------------------
FROM golang:1.26-trixie AS build
WORKDIR /src
# go-sqlite3 is C: cgo on, gcc and libc headers come with the golang image.
ENV CGO_ENABLED=1
# Modules first, so that a source change does not download them again.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
# The commit `ledger --version` names: .git is not in the build context, so
# give it (docker compose build --build-arg LEDGER_COMMIT=$(git rev-parse HEAD));
# without it the version says the commit is unknown and why.
ARG LEDGER_COMMIT=""
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    go build -trimpath -ldflags="-s -w -X main.buildCommit=${LEDGER_COMMIT}" -o /out/ledger ./cmd/ledger

# ---- run ------------------------------------------------------------------
FROM debian:trixie-slim
# ca-certificates: TLS to NATS (nats.ca) and HTTPS; tzdata: readable times.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates tzdata \
 && rm -rf /var/lib/apt/lists/*
# An unprivileged user owning the data folder. A fresh named volume mounted
# on /data takes over this ownership.
RUN useradd --system --uid 10001 --user-group --home-dir /data --shell /usr/sbin/nologin ledger \
 && mkdir -p /data && chown ledger:ledger /data
COPY --from=build /out/ledger /usr/local/bin/ledger
USER ledger
WORKDIR /data
# Defaults for a container; docker-compose.yml sets the NATS ones.
ENV LEDGER_DATA_DIR=/data \
    LEDGER_HTTP_ADDR=0.0.0.0:8080
VOLUME ["/data"]
EXPOSE 8080
# Healthy when ready to take commands: `ledger health` asks GET /readyz on
# 127.0.0.1 (this image has no curl nor wget).
HEALTHCHECK --interval=10s --timeout=6s --start-period=60s --retries=3 \
  CMD ["/usr/local/bin/ledger", "health", "--timeout", "4s"]
ENTRYPOINT ["/usr/local/bin/ledger"]
CMD ["serve"]
