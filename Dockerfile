# syntax=docker/dockerfile:1
# mindinsight-clone for a team (docs/deploy.md): the server with the s3:// backend, run as a non-root user.
#   docker build -t mindinsight-clone .
#   docker run -p 8080:8080 -v /data/runs:/data:ro -e MINDINSIGHT_AUTH_TOKEN=... \
#       -e MINDINSIGHT_ALLOWED_HOSTS=mindinsight.example.com mindinsight-clone
# Every setting is a MINDINSIGHT_* variable or a flag after the image name (README "Settings").

# 1. The web UI (Vite) -> mindinsight_clone/ui/dist
FROM node:22-bookworm-slim AS ui
WORKDIR /src
COPY frontend/package.json frontend/package-lock.json frontend/
RUN cd frontend && npm ci --no-audit --no-fund
COPY frontend frontend
COPY scripts/build_frontend scripts/build_frontend
RUN scripts/build_frontend --skip-install

# 2. A wheel that carries the built UI (no Node needed past this point)
FROM python:3.11-slim AS wheel
WORKDIR /src
COPY pyproject.toml setup.py README.md LICENSE ./
COPY mindinsight_clone mindinsight_clone
COPY --from=ui /src/mindinsight_clone/ui/dist mindinsight_clone/ui/dist
RUN MINDINSIGHT_CLONE_SKIP_UI=1 pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

# 3. The runtime: python slim, the wheel with the [s3] extra, tini as PID 1, a non-root user
FROM python:3.11-slim
RUN apt-get update && apt-get install -y --no-install-recommends tini \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --user-group --create-home --home-dir /home/mindinsight mindinsight \
    && mkdir -p /var/lib/mindinsight /data && chown mindinsight:mindinsight /var/lib/mindinsight
COPY --from=wheel /wheels /wheels
RUN whl=$(ls /wheels/*.whl) && pip install --no-cache-dir "${whl}[s3]" && rm -rf /wheels
USER mindinsight
ENV MINDINSIGHT_HOST=0.0.0.0 \
    MINDINSIGHT_PORT=8080 \
    MINDINSIGHT_WORKSPACE=/var/lib/mindinsight \
    MINDINSIGHT_SUMMARY_BASE_DIR=/data \
    PYTHONUNBUFFERED=1
# MINDINSIGHT_AUTH_TOKEN (the access token), MINDINSIGHT_ALLOWED_HOSTS (the names users reach it by) and, for a
# bucket, MINDINSIGHT_SUMMARY_BASE_DIR=s3://... with AWS_* credentials are given at run time, never baked in.
VOLUME ["/var/lib/mindinsight"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s \
    CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:8080' + os.environ.get('MINDINSIGHT_URL_PATH_PREFIX', '') + '/v1/mindinsight/health', timeout=4)"
# tini forwards `docker stop`'s SIGINT to the CLI, which stops gunicorn gracefully (Ctrl+C in --foreground)
STOPSIGNAL SIGINT
ENTRYPOINT ["tini", "--", "mindinsight-clone"]
CMD ["start", "--foreground", "--host", "0.0.0.0"]
