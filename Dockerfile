# One image for the API and the worker; the command picks the process (see docker-compose.yml).
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
# codec-tls makes its self-signed certificate with openssl (docker-compose.yml).
RUN apt-get update && apt-get install -y --no-install-recommends openssl && rm -rf /var/lib/apt/lists/*
USER node
EXPOSE 3000
CMD ["node", "--import", "tsx", "api/main.ts"]
