import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSession {
    /// Waits, at most `seconds`, until the session holds no task: `true` once it holds none.
    ///
    /// A test that must show that nothing more is reported after a cancel waits for this rather
    /// than for a fixed time: a late report could only come from a task of the session, and once
    /// it holds none, none can come.
    package func holdsNoTask(within seconds: TimeInterval = 10) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let tasks = await withCheckedContinuation { continuation in
                getAllTasks { continuation.resume(returning: $0.count) }
            }
            if tasks == 0 { return true }
            try? await Task.sleep(nanoseconds: 10_000_000)  // the next look, not a wait for time
        }
        return false
    }
}
