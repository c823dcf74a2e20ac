FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY cardtrail ./cardtrail
COPY engine ./engine
COPY service ./service
COPY workers ./workers
COPY replays ./replays
# with the PostgreSQL archive store (service/archive_pg.py)
RUN pip install --no-cache-dir ".[postgresql]"
EXPOSE 8000
CMD ["gunicorn", "-c", "python:cardtrail.web", "--workers", "2", "--bind", "0.0.0.0:8000", "service.api:create_app()"]
