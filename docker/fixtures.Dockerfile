# The bank fixture server (REST + GraphQL over one shared state), for compose-based test runs.
FROM python:3.11-slim
WORKDIR /srv
COPY Fixtures/requirements.txt Fixtures/requirements.txt
RUN pip install --no-cache-dir -r Fixtures/requirements.txt
COPY Fixtures Fixtures
EXPOSE 8080
HEALTHCHECK --interval=2s --timeout=2s --retries=30 \
  CMD python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8080/__control/health')"
CMD ["python3", "Fixtures/bank/server.py", "--host", "0.0.0.0", "--port", "8080"]
