# The test runner: the official Swift image plus libcurl and hiredis headers, redis-server (the replication
# tests start their own servers to kill and pause) and Python with graphql-core
# (the GraphQL parser's differential test runs graphql-core locally).
FROM swift:6.3-noble
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libcurl4-openssl-dev libhiredis-dev redis-server pkg-config python3 python3-pip make \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Fixtures/requirements.txt Fixtures/requirements.txt
RUN python3 -m pip install --break-system-packages --no-cache-dir -r Fixtures/requirements.txt
COPY . .
CMD ["make", "test"]
