import Foundation

/// A linear model of the bus fitted to `ucache-bench bus`'s points (least squares, with and without batching
/// together), and what it predicts for a fleet.
///
/// Assumptions: every replica receives every message published on the channel (its own included); a replica's CPU
/// is a fixed cost, a cost per received message (m: reading it off the socket, the hand-off, opening the seal, the
/// replay check) and a cost per received clear (c: decoding and applying); Redis's CPU is a fixed cost, a cost per
/// PUBLISH (r1) and a cost per delivery to one subscriber (r2), deliveries being messages/s × subscribed
/// connections; costs per message and per clear do not change with load (no cache effects), and one Redis thread
/// does all pub/sub work. A fleet replica batches as the measured publisher did at the rate nearest the fleet's
/// (clears per message, measured). Delivery p99 grows as the busiest single thread on the path (Redis's, or a
/// replica's receiving thread) fills: p99 = the lowest p99 measured in the mode (its least disturbed point, on a
/// shared machine) ÷ (1 − utilisation), and unbounded at or past one core.
struct BusModel {
    let replicaFixed: Double
    let replicaPerMessage: Double
    let replicaPerClear: Double
    let redisFixed: Double
    let redisPerPublish: Double
    let redisPerDelivery: Double
    let points: [BusSuite.Point]

    /// What the model says of one fleet, with its row and notes.
    struct Prediction {
        var row: BenchReport.Row
        var notes: [String]
    }

    init(points all: [BusSuite.Point]) {
        let unsaturated = all.filter { $0.delivered * 100 >= $0.expected * 95 }
        points = unsaturated.count >= 4 ? unsaturated : all
        let replica = Self.leastSquares(points.map { ([1, $0.messageRate, $0.rate], $0.replicaCPU) })
        (replicaFixed, replicaPerMessage, replicaPerClear) = (replica[0], replica[1], replica[2])
        let redis = Self.leastSquares(
            points.map { ([1, $0.messageRate, $0.messageRate * Double($0.subscribers + 1)], $0.redisCPU) })
        (redisFixed, redisPerPublish, redisPerDelivery) = (redis[0], redis[1], redis[2])
    }

    func replicaCPU(messages: Double, clears: Double) -> Double {
        replicaFixed + replicaPerMessage * messages + replicaPerClear * clears
    }

    func redisCPU(messages: Double, subscribers: Double) -> Double {
        redisFixed + redisPerPublish * messages + redisPerDelivery * messages * subscribers
    }

    var notes: [String] {
        [
            String(
                format: "model: replica CPU = %.4f + %.3f µs × messages/s + %.3f µs × clears/s received; Redis CPU"
                    + " = %.4f + %.3f µs × publishes/s + %.3f µs × deliveries/s (fitted to %d points).",
                replicaFixed, replicaPerMessage * 1e6, replicaPerClear * 1e6, redisFixed, redisPerPublish * 1e6,
                redisPerDelivery * 1e6, points.count)
        ]
    }

    /// `replicas` replicas, each publishing `ratePerReplica` clears/s, batching at most `batch` clears a message.
    func prediction(replicas: Double, ratePerReplica: Double, batch: Int, windowMicroseconds: Int) -> Prediction {
        let mode = points.filter { $0.batch == batch }
        let nearest = mode.min { abs($0.rate - ratePerReplica) < abs($1.rate - ratePerReplica) }
        let perMessage = batch > 1 ? max(1, nearest?.clearsPerMessage ?? 1) : 1
        let clears = replicas * ratePerReplica
        let messages = clears / perMessage
        let replica = replicaCPU(messages: messages, clears: clears)
        let redis = redisCPU(messages: messages, subscribers: replicas)
        let busiest = max(replica, redis)
        let baseP99 = mode.map(\.p99).min() ?? 0
        var values = [
            "replica %core": replica * 100, "µs/clear": replica / clears * 1e6, "clears/message": perMessage,
            "Redis %core": redis * 100,
        ]
        if busiest < 1 { values["p99 µs"] = baseP99 / (1 - busiest) }
        let label = batch > 1 ? "batching (\(batch) a message, \(windowMicroseconds) µs window)" : "one clear a message"
        return Prediction(
            row: .init(
                name: "model: \(Int(replicas)) replicas × \(Int(ratePerReplica)) clears/s each, \(label)",
                values: values),
            notes: [
                String(
                    format: "prediction, %@: %.0f clears/s published in %.0f messages/s (%.1f clears each, as measured"
                        + " at %.0f clears/s), each replica receiving all of them; %.0f deliveries/s; base p99 %.0f µs%@",
                    label, clears, messages, perMessage, nearest?.rate ?? 0, messages * replicas, baseP99,
                    redis >= 1 ? "; Redis past one core: delivery p99 unbounded (the channel saturates)" : ".")
            ])
    }

    /// Coefficients minimising the squared error of `rows` (features, value), by the normal equations.
    static func leastSquares(_ rows: [([Double], Double)]) -> [Double] {
        guard let width = rows.first?.0.count else { return [] }
        var matrix = [[Double]](repeating: [Double](repeating: 0, count: width + 1), count: width)
        for (features, value) in rows {
            for i in 0..<width {
                for j in 0..<width { matrix[i][j] += features[i] * features[j] }
                matrix[i][width] += features[i] * value
            }
        }
        for column in 0..<width {
            guard
                let pivot = (column..<width).max(by: { abs(matrix[$0][column]) < abs(matrix[$1][column]) }),
                abs(matrix[pivot][column]) > 1e-18
            else { continue }
            matrix.swapAt(column, pivot)
            for row in 0..<width where row != column {
                let factor = matrix[row][column] / matrix[column][column]
                for k in column...width { matrix[row][k] -= factor * matrix[column][k] }
            }
        }
        return (0..<width).map { abs(matrix[$0][$0]) > 1e-18 ? matrix[$0][width] / matrix[$0][$0] : 0 }
    }
}
