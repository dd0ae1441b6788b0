# Parley's image: built with the steps a checkout uses (npm ci, npm run build) and started as
# `npm start` starts the built server, with the same node flags (test/deploy/container-files.test.ts
# keeps them in step with package.json). Configuration comes from the environment: docs/deploy.md.

# The full Debian image has the compiler better-sqlite3 falls back to when no prebuilt binary fits.
FROM node:20-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build

# Same Debian release and Node.js major as the build, so the compiled addon runs here.
FROM node:20-bookworm-slim
WORKDIR /app
COPY --from=build /app /app
RUN mkdir -p /data && chown node:node /data
ENV DATA_DIR=/data PORT=8080
USER node
VOLUME /data
EXPOSE 8080
CMD ["node", "--max-semi-space-size=32", "dist/src/cli.js", "serve"]
