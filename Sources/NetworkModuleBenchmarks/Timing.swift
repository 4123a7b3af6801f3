import Foundation

/// Runs `body` `iterations` times per round, after a warm-up, for several rounds, and returns
/// nanoseconds per iteration of each round.
func measure(iterations: Int, rounds: Int, warmUp: Int, _ body: () -> Void) -> Summary {
    for _ in 0..<warmUp { body() }
    var perIteration: [Double] = []
    for _ in 0..<rounds {
        let start = nowNanoseconds()
        for _ in 0..<iterations { body() }
        perIteration.append(Double(nowNanoseconds() - start) / Double(iterations))
    }
    return Summary(perIteration)
}

/// Keeps a value alive and observable so the optimizer cannot remove the work that made it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
