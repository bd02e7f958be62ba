import Foundation

/// A linear model of the bus fitted to `ucache-bench bus`'s points (least squares), and what it predicts for a fleet.
///
/// Assumptions: every replica receives every clear published on the channel (its own included), so a replica's CPU
/// is a fixed cost plus a cost per received message (c); Redis's CPU is a fixed cost, a cost per PUBLISH (r1) and a
/// cost per delivery to one subscriber (r2), deliveries being published/s × subscribed connections; costs per
/// message do not change with load (no batching on either side, no cache effects), and one Redis thread does all
/// pub/sub work. Delivery p99 grows as the busiest single thread on the path (Redis's, or a replica's receiving
/// thread) fills: p99 = measured p99 at the lightest point ÷ (1 − utilisation), and unbounded at or past one core.
struct BusModel {
    let replicaFixed: Double
    let replicaPerMessage: Double
    let redisFixed: Double
    let redisPerPublish: Double
    let redisPerDelivery: Double
    let baseP99: Double

    init(points all: [BusSuite.Point]) {
        let unsaturated = all.filter { $0.delivered * 100 >= $0.expected * 95 }
        let points = unsaturated.count >= 3 ? unsaturated : all
        let replica = Self.leastSquares(points.map { ([1, $0.rate], $0.replicaCPU) })
        (replicaFixed, replicaPerMessage) = (replica[0], replica[1])
        let redis = Self.leastSquares(
            points.map { ([1, $0.rate, $0.rate * Double($0.subscribers + 1)], $0.redisCPU) })
        (redisFixed, redisPerPublish, redisPerDelivery) = (redis[0], redis[1], redis[2])
        baseP99 = points.min { $0.rate * Double($0.subscribers) < $1.rate * Double($1.subscribers) }?.p99 ?? 0
    }

    func replicaCPU(received: Double) -> Double { replicaFixed + replicaPerMessage * received }

    func redisCPU(published: Double, subscribers: Double) -> Double {
        redisFixed + redisPerPublish * published + redisPerDelivery * published * subscribers
    }

    func prediction(replicas: Double, ratePerReplica: Double) -> BenchReport.Row {
        let published = replicas * ratePerReplica
        let replica = replicaCPU(received: published)
        let redis = redisCPU(published: published, subscribers: replicas)
        let busiest = max(replica, redis)
        var values = [
            "replica %core": replica * 100, "µs/message": replicaPerMessage * 1e6, "Redis %core": redis * 100,
        ]
        if busiest < 1 { values["p99 µs"] = baseP99 / (1 - busiest) }
        return .init(name: "model: \(Int(replicas)) replicas × \(Int(ratePerReplica)) clears/s each", values: values)
    }

    func notes(replicas: Double, ratePerReplica: Double) -> [String] {
        let published = replicas * ratePerReplica
        let redis = redisCPU(published: published, subscribers: replicas)
        return [
            String(
                format: "model: replica CPU = %.4f + %.3f µs × received/s; Redis CPU = %.4f + %.3f µs × published/s"
                    + " + %.3f µs × deliveries/s; base p99 %.0f µs (lightest point).",
                replicaFixed, replicaPerMessage * 1e6, redisFixed, redisPerPublish * 1e6, redisPerDelivery * 1e6,
                baseP99),
            String(
                format: "prediction: %.0f clears/s published, %.0f received per replica, %.0f deliveries/s%@",
                published, published, published * replicas,
                redis >= 1 ? "; Redis past one core: delivery p99 unbounded (the channel saturates)" : ""),
        ]
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
