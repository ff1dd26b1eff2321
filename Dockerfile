# herald: one image for every role (`herald serve --role api|worker|all`).
# Node 24 runs the server's TypeScript source as it is (type stripping). The web
# application (web/, served at /app) is built by Vite in a stage of its own, with the
# dev dependencies; the image gets only web/dist and the production dependencies.
# Build: docker build -t herald .
FROM node:24-slim AS web
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY web ./web
COPY src ./src
RUN node web/build.ts

FROM node:24-slim

ENV NODE_ENV=production \
    HERALD_HOST=0.0.0.0 \
    HERALD_PORT=8080 \
    HERALD_DATABASE_URL=sqlite:/var/lib/herald/herald.db \
    NODE_COMPILE_CACHE=/var/lib/herald/node-compile-cache

WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` builds web/, which happened in the stage above.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY src ./src
COPY --from=web /build/web/dist ./web/dist
COPY deploy/herald deploy/node-flags deploy/require-node-24.mjs ./deploy/

# The code stays root's and read-only to the service; only /var/lib/herald (the
# embedded SQLite store, when no PostgreSQL is configured) is writable.
RUN chmod 0755 /app/deploy/herald \
 && ln -s /app/deploy/herald /usr/local/bin/herald \
 && groupadd --system herald \
 && useradd --system --gid herald --home-dir /var/lib/herald --no-create-home --shell /usr/sbin/nologin herald \
 && install -d -o herald -g herald -m 0750 /var/lib/herald
USER herald
VOLUME ["/var/lib/herald"]

# 8080: HTTP API (HERALD_PORT). 2525: inbound SMTP for bounces and complaints
# (HERALD_INBOUND_SMTP_PORT=2525; publish it as the bounce domain's port 25).
EXPOSE 8080 2525

# /readyz, not /healthz: a process without its database, or whose delivery loop is stuck,
# is unhealthy (docs/operations.md "Health"); the start period covers the first turn.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.HERALD_PORT}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

ENTRYPOINT ["herald"]
CMD ["serve"]
