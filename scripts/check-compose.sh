#!/usr/bin/env bash
# Validates docker-compose.yml without a Docker engine: Debian's docker-compose 1.29 checks the file
# against the Compose schema in `config`, which needs no engine. Installs it when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v docker-compose >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq docker-compose >/dev/null
fi
docker-compose --env-file .env.example -f docker-compose.yml config -q
echo "check-compose: docker-compose.yml is valid ($(docker-compose version --short))"
