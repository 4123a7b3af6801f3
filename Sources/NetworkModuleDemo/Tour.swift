import Foundation
import NetworkModuleCore

/// The tour: each step shows one part of the framework and prints what happened.
/// Completions run on the main queue, as in an app; the tour waits for each before going on.
struct Tour {
    let module: any NetworkModule
    let backendName: String
    let lastMetrics: LastMetrics

    func run() async -> Bool {
        print("NetworkModule tour against \(backendName)\n")
        var allPassed = true
        allPassed =
            await step(1, "Build and perform a request, decode the JSON body (callback style)") {
                let result = await withCheckedContinuation { continuation in
                    module.performAndDecode(request: SearchRequest(term: "swift & networking"), responseType: Echo.self)
                    {
                        continuation.resume(returning: $0)
                    }
                }
                let echo = try result.get()
                print(
                    "    the server received q = \"\(echo.args["q"] ?? "?")\", fields = \"\(echo.args["fields"] ?? "?")\""
                )
                print("    sent URL: \(echo.url)")
                return echo.args["q"] == "swift & networking"
            } && allPassed

        allPassed =
            await step(2, "POST a JSON body") {
                let note = NewNote(title: "Buy milk", tags: ["home", "urgent"])
                let echo = try await module.performAndDecode(
                    request: CreateNoteRequest(note: note), responseType: Echo.self)
                print("    the server received the note \"\(echo.json?.title ?? "?")\" tagged \(echo.json?.tags ?? [])")
                return echo.json?.title == note.title
            } && allPassed

        allPassed =
            await step(3, "An HTTP error keeps its status, headers and body") {
                let result = await withCheckedContinuation { continuation in
                    module.perform(request: StatusRequest(code: 404)) { continuation.resume(returning: $0) }
                }
                guard case .failure(let error) = result else { return false }
                print("    error: \(error)")
                if let problem = try? error.httpErrorResponse?.decodeBody(as: ServerProblem.self) {
                    print("    decoded error body: \(problem.error): \(problem.detail)")
                } else {
                    print(
                        "    (this server sent no JSON error body: \(error.httpErrorResponse?.body.count ?? 0) bytes)")
                }
                return error.statusCode == 404
            } && allPassed

        allPassed =
            await step(4, "Cancel a request in flight: the completion gets .cancelled, once") {
                let result = await withCheckedContinuation { continuation in
                    let task = module.perform(request: SlowRequest(seconds: 3)) { continuation.resume(returning: $0) }
                    task.cancel()
                    task.cancel()  // harmless
                }
                guard case .failure(let error) = result else { return false }
                print("    result: \(error)")
                return error == .cancelled
            } && allPassed

        allPassed =
            await step(5, "async/await, with Task cancellation") {
                let task = Task {
                    try await module.performAndDecode(request: SlowRequest(seconds: 3), responseType: Echo.self)
                }
                task.cancel()
                let outcome = await task.result
                if case .failure(let error as NetworkError) = outcome {
                    print("    the cancelled Task threw \(error)")
                    return error == .cancelled
                }
                return false
            } && allPassed

        allPassed =
            await step(6, "Built-in actions: a 503 is retried with backoff, then delivered; metrics count the attempts")
        {
            let result = await withCheckedContinuation { continuation in
                module.perform(request: StatusRequest(code: 503)) { continuation.resume(returning: $0) }
            }
            guard case .failure(let error) = result, let metrics = lastMetrics.value else { return false }
            let milliseconds = Int((metrics.totalDuration * 1000).rounded())
            print(
                "    delivered \(error.statusCode ?? 0) after \(metrics.attempts) attempts, \(milliseconds) ms in all")
            return error.statusCode == 503 && metrics.attempts == 3
        } && allPassed

        allPassed =
            await step(7, "Download to a file with progress: the file lands at its destination, nothing else is left") {
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tour-\(UUID().uuidString)")
                defer { try? FileManager.default.removeItem(at: folder) }
                let reports = ReportCount()
                let download = try await module.download(
                    request: BytesRequest(count: 100_000),
                    to: DownloadDestination(folder.appendingPathComponent("bytes.bin")),
                    progress: { progress in reports.add(progress) })
                let size =
                    (try FileManager.default.attributesOfItem(atPath: download.fileURL.path)[.size] as? NSNumber)?
                    .intValue
                let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
                let last = reports.last.flatMap { $0.fractionCompleted }.map { Int($0 * 100) } ?? 0
                print(
                    "    saved \(size ?? 0) bytes to \(download.fileURL.lastPathComponent); \(reports.count) progress report(s), the last at \(last)%"
                )
                print("    the folder holds \(left)")
                return size == 100_000 && left == ["bytes.bin"] && last == 100
            } && allPassed

        print(allPassed ? "\nTour complete: every step behaved as described." : "\nTour finished with failures.")
        return allPassed
    }

    private func step(_ number: Int, _ title: String, _ body: () async throws -> Bool) async -> Bool {
        print("\(number). \(title)")
        do {
            let passed = try await body()
            print(passed ? "    ✓\n" : "    ✗ unexpected result\n")
            return passed
        } catch {
            print("    ✗ \(error)\n")
            return false
        }
    }
}

/// The progress reports of the tour's download, from the completion executor.
private final class ReportCount: @unchecked Sendable {
    // @unchecked Sendable is safe: `lock` guards `reports`.
    private let lock = NSLock()
    private var reports: [TransferProgress] = []

    func add(_ report: TransferProgress) { lock.withLock { reports.append(report) } }
    var count: Int { lock.withLock { reports.count } }
    var last: TransferProgress? { lock.withLock { reports.last } }
}
