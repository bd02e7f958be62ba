/// Unlabelled Prometheus series (a gauge, counters, a summary's sum and count) for the parts of the hub that add
/// their own families to ``CacheHub/metricsText()``: replication and the second level.
enum PrometheusSeries {
    /// One gauge with its `# HELP` and `# TYPE` lines.
    static func gauge(_ name: String, help: String, value: Int, into text: inout String) {
        text += "# HELP \(name) \(MetricsExport.escapeHelp(help))\n# TYPE \(name) gauge\n\(name) \(value)\n"
    }

    /// One counter per `(name, help, value)`, each named `<prefix>_<name>_total`.
    static func counters(prefix: String, _ counters: [(String, String, Int)], into text: inout String) {
        for (name, help, value) in counters {
            let metric = "\(prefix)_\(name)_total"
            text += "# HELP \(metric) \(MetricsExport.escapeHelp(help))\n# TYPE \(metric) counter\n\(metric) \(value)\n"
        }
    }
}
