import Foundation
import NetworkModuleCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Pipeline mode: no network. A session that answers at once and the immediate executor, so a
/// request completes inside the call and the time measured is the framework's own.
struct PipelineBenchmarks {
    let options: BenchmarkOptions

    struct Case: Codable {
        let name: String
        let nanosecondsPerRequest: Summary
        /// Nanoseconds over the baseline it is compared with, if any.
        let overheadNanoseconds: Double?
        let baseline: String?
    }

    func run() throws -> [Case] {
        let baseURLString = "http://127.0.0.1:8080"
        let baseURL = URL(string: baseURLString)!
        let body = try Workload.userJSON()
        let session = InstantSession(body: body, url: baseURL)
        let builder = DefaultRequestBuilder(baseURL: baseURL, defaultHeaders: ["Accept": "application/json"])
        let plainModule = DefaultNetworkModule(
            requestBuilder: builder, session: session, completionExecutor: .immediate)
        let actionModule = DefaultNetworkModule(
            requestBuilder: builder, session: session, actions: TypicalActions.make(), completionExecutor: .immediate)
        // The same modules with the tracing action first: what one request's spans cost.
        let tracedModule = DefaultNetworkModule(
            requestBuilder: builder, session: session, actions: [.tracing { span in blackHole(span) }],
            completionExecutor: .immediate)
        let tracedActionModule = DefaultNetworkModule(
            requestBuilder: builder, session: session,
            actions: [.tracing { span in blackHole(span) }] + TypicalActions.make(), completionExecutor: .immediate)
        let exportingModule = DefaultNetworkModule(
            requestBuilder: builder, session: session, actions: [.tracing { span in blackHole(span.attributes) }],
            completionExecutor: .immediate)
        let decoder = JSONDecoder()
        let request = UserRequest()

        // Each case: a name, the baseline it is compared with, and one request's work.
        var plan: [(name: String, baseline: String?, body: () -> Void)] = [
            (
                "(a) hand-built URLRequest + session", nil,
                {
                    let urlRequest = Workload.handBuiltRequest(baseURL: baseURLString)
                    session.dataTask(with: urlRequest) { data, response, _ in
                        blackHole((data, (response as? HTTPURLResponse)?.statusCode))
                    }.resume()
                }
            ),
            (
                "(b) perform(request:), no actions", "(a)",
                {
                    plainModule.perform(request: request) { blackHole($0) }
                }
            ),
            (
                "(c) perform(request:), 3 typical actions", "(a)",
                {
                    actionModule.perform(request: request) { blackHole($0) }
                }
            ),
            (
                "(t) perform(request:), .tracing", "(b)",
                {
                    tracedModule.perform(request: request) { blackHole($0) }
                }
            ),
            (
                "(t+c) perform(request:), .tracing + 3 typical actions", "(c)",
                {
                    tracedActionModule.perform(request: request) { blackHole($0) }
                }
            ),
            (
                "(t2) perform(request:), .tracing, each span's attributes read", "(t)",
                {
                    exportingModule.perform(request: request) { blackHole($0) }
                }
            ),
            (
                "(d0) hand-built + JSONDecoder", nil,
                {
                    let urlRequest = Workload.handBuiltRequest(baseURL: baseURLString)
                    session.dataTask(with: urlRequest) { data, response, _ in
                        guard (response as? HTTPURLResponse)?.statusCode == 200, let data else { return }
                        blackHole(try? decoder.decode(BenchmarkUser.self, from: data))
                    }.resume()
                }
            ),
            (
                "(d) performAndDecode", "(d0)",
                {
                    plainModule.performAndDecode(request: request, responseType: BenchmarkUser.self, decoder: decoder) {
                        blackHole($0)
                    }
                }
            ),
        ]
        let cacheable = InstantSession(body: body, url: baseURL, headerFields: ["Cache-Control": "max-age=3600"])
        for decorated in SessionDecoratorCases.make(inner: session, cacheable: cacheable) {
            let module = DefaultNetworkModule(
                requestBuilder: builder, session: decorated.session, completionExecutor: .immediate)
            plan.append(
                (
                    "(e) perform(request:), \(decorated.name)", "(b)",
                    {
                        module.perform(request: request) { blackHole($0) }
                    }
                ))
        }

        var medians: [String: Double] = [:]
        var cases: [Case] = []
        for entry in plan where options.caseFilter.map({ entry.name.contains($0) }) ?? true {
            let summary = measure(
                iterations: options.pipelineIterations, rounds: options.rounds, warmUp: options.pipelineIterations / 5,
                entry.body)
            let key = String(entry.name.prefix { $0 != " " })
            medians[key] = summary.median
            let baselineMedian = entry.baseline.flatMap { medians[$0] }
            cases.append(
                Case(
                    name: entry.name, nanosecondsPerRequest: summary,
                    overheadNanoseconds: baselineMedian.map { summary.median - $0 },
                    baseline: baselineMedian == nil ? nil : entry.baseline))
        }
        return cases
    }
}
