import Rendering
import PhotodropTelemetry

extension PrometheusText {
    /// The decode memory budget of this process (``DecodeBudget``): its size, the memory the decodes running now were
    /// estimated at, how many decodes wait for memory now and how many had to since the start. Names begin with
    /// `prefix` (`photodrop_` for watch, `photodrop_http_` for serve, so that serve's page can carry watch's too).
    public mutating func decodeBudget(_ budget: DecodeBudget, prefix: String) {
        single(
            prefix + "decode_memory_budget_bytes", type: "gauge",
            help: "Memory the decodes for thumbnails and previews may use at once (decodeMemoryMiB).",
            Double(budget.totalBytes))
        single(
            prefix + "decode_memory_in_use_bytes", type: "gauge",
            help: "Estimated memory of the decodes running now.", Double(budget.inUseBytes))
        single(
            prefix + "decodes_waiting_for_memory", type: "gauge",
            help: "Decodes waiting until the memory budget admits them.", Double(budget.waiting))
        single(
            prefix + "decodes_waited_for_memory_total", type: "counter",
            help: "Decodes that had to wait for the memory budget.", Double(budget.waitedTotal))
    }
}
