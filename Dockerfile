# Vigil: one image for every role (VIGIL_ROLE=api|worker|all). docs/operations.md, "Containers".
# The console and the embed component are built with their dev dependencies (Vite), and the server
# compiled (packages/server/dist), in a stage of their own, so that the image holds only their built files.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc tsconfig.json ./
COPY packages packages
RUN npm ci --no-audit --no-fund --ignore-scripts && npm run build -w packages/console -w packages/embed -w packages/server

FROM node:22-bookworm-slim

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    VIGIL_DATA_DIR=/data

WORKDIR /app
# Dependencies first, so that a change of source reuses this layer.
# Every workspace's package.json, because the lockfile names them all; --ignore-scripts skips the
# root's prepare (the front end and the compiled server come built from the stage above).
COPY package.json package-lock.json .npmrc ./
COPY packages/server/package.json packages/server/
COPY packages/client/package.json packages/client/
COPY packages/console/package.json packages/console/
COPY packages/embed/package.json packages/embed/
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY packages/server/bin packages/server/bin
COPY packages/server/launch packages/server/launch
COPY packages/server/src packages/server/src
COPY --from=build /app/packages/server/dist packages/server/dist
COPY --from=build /app/packages/console/dist packages/console/dist
COPY --from=build /app/packages/embed/dist packages/embed/dist
COPY tsconfig.json LICENSE ./

# Not root: the image's `node` user owns only the data directory (embedded PGlite, secret key, exports).
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000

# /readyz: 200 once the database answers, within 2 s whatever it does.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# node is PID 1's only child: tini (`init: true` in compose, `docker run --init`) reaps and forwards
# signals; without it node is PID 1 itself, which also works: Vigil installs its own SIGTERM handler.
# What `npm start` runs, without npm in between, so SIGTERM reaches the server directly. It runs
# packages/server/dist, built above from the same sources (launch/compiled.js checks that).
# --no-memory-reducer: docs/operations.md, "Node's flags".
CMD ["node", "--no-memory-reducer", "packages/server/bin/vigil.js", "serve"]
