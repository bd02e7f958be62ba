-- The `done` of scripts/bench-bff.sh's wrk scripts: one BENCH line that bench-bff.sh parses.
function done(summary, latency, requests)
  local errors = summary.errors
  local failed = errors.connect + errors.read + errors.write + errors.timeout + errors.status
  io.write(string.format("BENCH requests=%d rps=%.0f p50_ms=%.2f p99_ms=%.2f errors=%d\n",
    summary.requests, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, failed))
end
