# prb-annotate: the annotation app on port 8501, its SQLite database on the /data volume.
#   docker build -t prb-annotate .
#   docker run -p 8501:8501 -v prb-data:/data prb-annotate                 # serve
#   docker run --rm -v prb-data:/data prb-annotate prb-annotate demo --no-serve   # demo set-up
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PRB_DATABASE_URL=sqlite:////data/prb_annotate.db

WORKDIR /app
COPY pyproject.toml README.md ./
COPY annotate ./annotate
COPY analysis ./analysis
COPY data ./data
RUN pip install . \
    && useradd --create-home --uid 10001 prb \
    && mkdir -p /data && chown prb:prb /data

USER prb
VOLUME ["/data"]
EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4).read() == b'ok' else 1)"
CMD ["prb-annotate", "serve", "--port", "8501", "--address", "0.0.0.0"]
