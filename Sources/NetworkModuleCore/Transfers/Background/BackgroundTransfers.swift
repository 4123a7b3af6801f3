import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Uploads from files and downloads to files that go on while the app is suspended or not
/// running, on a background `URLSession` (Apple platforms), prepared by a module's actions, and
/// each reported to one handler exactly once, after a relaunch too.
///
/// Create one per session identifier when the app launches, with the handler that takes every
/// result, and keep it for the life of the app:
///
/// ```swift
/// let transfers = BackgroundTransfers(identifier: "com.example.app.transfers", module: module) { id, result in
///     // Once per transfer ID, on the module's completion executor: in this launch or a later one.
///     print(id, (try? result.get())?.statusCode ?? 0)
/// }
/// try transfers.upload(request: UploadVideo(file: videoURL), id: "video-42")
/// try transfers.download(request: GetVideo(id: 7), to: DownloadDestination(videoURL), id: "video-7")
/// ```
///
/// Each transfer is built by the module's request builder and prepared by its actions before
/// the system gets it (the request's timeout bounds the wait: past it, ``NetworkError/timedOut``,
/// unsent); the actions validate and observe its result before the handler gets it. A ledger in
/// `stateDirectory` reports each transfer exactly once, after a relaunch or a crash too, and an
/// interrupted download continues from its resume data. A request the background session cannot
/// send safely (a body that is not a file, a download with a body, a redirect policy other than
/// ``RedirectPolicy/follow``, credentials without `credentialsMayFollowRedirects`, an unknown
/// server-trust policy, and every transfer on Linux) is refused, unsent, with
/// ``NetworkError/transportError(_:)-enum.case`` (`URLError.unsupportedURL`, saying why). The
/// Transfers guide (`docs/transfers.md`, "Background transfers") tells the rest.
public final class BackgroundTransfers: Sendable {
    /// The identifier of the background session: the one the system gives
    /// ``handleEvents(forBackgroundURLSession:completionHandler:)``.
    public let identifier: String

    let module: DefaultNetworkModule
    private let handler: @Sendable (_ id: String, _ result: Result<NetworkResponse, NetworkError>) -> Void
    /// Not private: a test waits on what it has written down.
    let ledger: LockedState<BackgroundTransferLedger>
    private let store: BackgroundTransferStore
    /// The system's side; `nil` on Linux, where every transfer is refused.
    private let system: (any BackgroundTaskSystem)?
    /// Orders the system's sends and cancels: a transfer cancelled while its hand-off was on the
    /// way is either never sent, or sent before its cancel, never cancelled first and then sent.
    private let handOff = LockedState(())
    /// This instance's hold on its state folder, for its life (``StateDirectoryClaim``).
    private let claim: StateDirectoryClaim?
    /// Another live instance holds the folder: this one refuses everything.
    private let isSecond: Bool
    /// The server-trust policy the system's session applies; `nil` when the module's session
    /// hides it, and then every transfer is refused (``BackgroundTransferRefusal/serverTrustUnknown``).
    private let serverTrust: ServerTrustPolicy?
    /// Whether a transfer may carry credential header fields, which the system keeps on the
    /// redirects it follows unasked.
    private let credentialsMayFollowRedirects: Bool
    /// The module's transport's credential header names, lowercased, beside the framework's own.
    private let credentialHeaderNames: Set<String>
    /// The app delegate's completion handler, on the main actor where UIKit gives it.
    @MainActor private var events = BackgroundEventsHandoff<() -> Void>()

    /// The largest upload reply, or body of a refused download status, kept for the result: 1 MiB.
    static let bodyLimit = 1 << 20

    /// Reattaches to the background session `identifier` (or creates it), and reports to
    /// `handler` every transfer that ended while the app was away and was not reported yet.
    ///
    /// Create it when the app launches, before the app delegate's
    /// `application(_:handleEventsForBackgroundURLSession:completionHandler:)` runs, and only one
    /// per identifier in a process: the system delivers a session's events to the first
    /// `URLSession` made with its identifier. A second one made while the first is alive (for the
    /// same state folder) sends and reports nothing: its `upload` and `download` throw
    /// ``NetworkError/transportError(_:)-enum.case`` (`URLError.unsupportedURL`, saying so).
    ///
    /// - Parameters:
    ///   - identifier: the background session's identifier, the same at every launch.
    ///   - module: builds each request, prepares it with its actions, which observe the result,
    ///     and delivers through its completion executor; its session is not used.
    ///   - stateDirectory: where the ledger and the resume data go, in a folder named after
    ///     `identifier`; Application Support (`NetworkModule/BackgroundTransfers`) when `nil`.
    ///   - serverTrust: which HTTPS servers the transfers trust; when `nil`, the default, the
    ///     `serverTrust:` policy of the module's ``URLSessionTransport``, found behind the
    ///     framework's decorators (or the system's, for a plain `URLSession` without a delegate).
    ///     Give it for any other session of your own (``ServerTrustPolicy/system`` when the
    ///     transport pins nothing), or every transfer is refused, unsent (`docs/transfers.md`).
    ///   - credentialsMayFollowRedirects: whether a transfer may carry credential header fields
    ///     (the names ``Redaction`` masks), which the system keeps on the redirects it follows
    ///     unasked; such a download keeps no resume data. When `false`, the default, such a
    ///     transfer fails unsent, through `handler`, with
    ///     ``NetworkError/transportError(_:)-enum.case`` (`URLError.unsupportedURL`). Set it only
    ///     for a server that redirects to origins you trust (`docs/transfers.md`).
    ///   - handler: called once per transfer, on the module's completion executor, with its ID
    ///     and result. An upload's response holds the server's reply (up to 1 MiB); a download's
    ///     has an empty `data`, its body being at the destination.
    public convenience init(
        identifier: String, module: DefaultNetworkModule, stateDirectory: URL? = nil,
        serverTrust: ServerTrustPolicy? = nil, credentialsMayFollowRedirects: Bool = false,
        handler: @escaping @Sendable (_ id: String, _ result: Result<NetworkResponse, NetworkError>) -> Void
    ) {
        // The transport's settings (its credential names and its pins), found through any
        // decorators in front of it.
        let transport = module.session.transferring.underlyingTransport
        let names = Set((transport?.credentialHeaderNames ?? []).map { $0.lowercased() })
        let trust = Self.serverTrust(given: serverTrust, session: module.session)
        #if canImport(FoundationNetworking)
            let system: (any BackgroundTaskSystem)? = nil
        #else
            // An unknown policy starts nothing (``start``); a transfer of an earlier launch still
            // ends here, and fails closed should it be challenged.
            let system: (any BackgroundTaskSystem)? = BackgroundSession(
                identifier: identifier, credentialHeaderNames: names,
                serverTrust: trust ?? .pinnedPublicKeys(sha256: []))
        #endif
        self.init(
            identifier: identifier, module: module,
            directory: BackgroundTransferStore.directory(for: identifier, in: stateDirectory), system: system,
            serverTrust: trust, credentialHeaderNames: names,
            credentialsMayFollowRedirects: credentialsMayFollowRedirects, claimsDirectory: true, handler: handler)
    }

    /// The policy the transfers keep: `given`, or else that of the transport `session` sends on,
    /// or the system's for a plain `URLSession` without a delegate (it answers no challenge);
    /// `nil` when none is known, and then nothing starts.
    static func serverTrust(given: ServerTrustPolicy?, session: any NetworkSession) -> ServerTrustPolicy? {
        if let given { return given }
        let sending = session.transferring
        if let transport = sending.underlyingTransport { return transport.serverTrust }
        if let plain = sending as? URLSessionAdapter, plain.urlSession.delegate == nil { return .system }
        return nil
    }

    /// An instance on `system` (a fake in tests), with its files in `directory`; `writesFiles`
    /// replaces the store's file writer (tests fail writes with it). With `claimsDirectory` (the
    /// app's instances), a second live instance for `directory` refuses everything; tests that
    /// play a relaunch keep the earlier instance alive, and leave it out.
    init(
        identifier: String, module: DefaultNetworkModule, directory: URL, system: (any BackgroundTaskSystem)?,
        serverTrust: ServerTrustPolicy? = .system, credentialHeaderNames: Set<String> = [],
        credentialsMayFollowRedirects: Bool = false,
        writesFiles: (@Sendable (Data, URL) -> Bool)? = nil, claimsDirectory: Bool = false,
        handler: @escaping @Sendable (_ id: String, _ result: Result<NetworkResponse, NetworkError>) -> Void
    ) {
        let claim = claimsDirectory ? StateDirectoryClaim.claim(directory) : nil
        let isSecond = claimsDirectory && claim == nil
        self.claim = claim
        self.isSecond = isSecond
        self.identifier = identifier
        self.module = module
        self.serverTrust = serverTrust
        self.credentialHeaderNames = credentialHeaderNames
        self.credentialsMayFollowRedirects = credentialsMayFollowRedirects
        self.handler = handler
        self.store = BackgroundTransferStore(directory: directory, write: writesFiles)
        // A second instance neither reads the ledger (its results are the first one's to report)
        // nor makes a session (the system delivers to the first).
        self.ledger = LockedState(isSecond ? BackgroundTransferLedger() : BackgroundTransferLedger(store.load()))
        self.system = isSecond ? nil : system
        guard !isSecond else { return }
        perform(ledger.withLock { $0.launched() })
        system?.attach(to: self)
        system?.listTokens { [weak self] tokens in
            guard let self else { return }
            self.perform(self.ledger.withLock { $0.listed(tokens) })
        }
    }

    /// Uploads the file body of `request` in the background, as transfer `id`.
    ///
    /// The request is built and prepared by the module's actions, then handed to the system,
    /// which sends the file (`URLSession.uploadTask(with:fromFile:)`) when it sees fit, whether
    /// the app runs or not. Keep the file where it is until the handler has the result.
    ///
    /// - Parameters:
    ///   - request: a request whose body is ``RequestBody/file(_:contentType:)``.
    ///   - id: the transfer's ID, chosen by the app: the handler gets its result under it.
    /// - Returns: `true` when the transfer starts; `false`, starting nothing, when a transfer
    ///   with this ID is under way or not yet reported (its result is still to come).
    /// - Throws: ``NetworkError/transportError(_:)-enum.case`` (`URLError.unsupportedURL`) for
    ///   a body that is not a file, a redirect policy other than ``RedirectPolicy/follow``, a
    ///   server-trust policy that is not known (see ``init(identifier:module:stateDirectory:serverTrust:credentialsMayFollowRedirects:handler:)``),
    ///   and on Linux; `URLError.cannotWriteToFile` while the ledger cannot be read (a device
    ///   locked since it restarted); the builder's ``NetworkError/invalidRequest(_:)``. Nothing is
    ///   sent then, and the handler is not called. An action that fails the request later reports
    ///   through the handler.
    @discardableResult
    public func upload(request: any NetworkRequest, id: String) throws(NetworkError) -> Bool {
        try refuseWithoutSystem()
        guard case .file(let file, _)? = request.body?.content else {
            throw BackgroundTransferRefusal.bodyNotAFile.networkError(url: nil)
        }
        return try start(request, id: id, kind: .upload(file: file))
    }

    /// Downloads the body of `request` to `destination` in the background, as transfer `id`.
    ///
    /// The request is built and prepared by the module's actions, then handed to the system. When
    /// the response's status is one the request accepts, the file is moved to `destination` as
    /// ``DownloadDestination`` says (its folders created, an existing file replaced, or not);
    /// otherwise the body goes into the error. If resume data of an interrupted download with
    /// this ID is on disk, the download continues from it: the system then sends the request of
    /// the interrupted attempt, as the resume data holds it.
    ///
    /// - Parameters:
    ///   - request: a request without a body.
    ///   - destination: where the file goes.
    ///   - id: the transfer's ID, chosen by the app: the handler gets its result under it.
    /// - Returns: as ``upload(request:id:)`` does.
    /// - Throws: as ``upload(request:id:)`` does, a request with a body being refused instead of
    ///   a body that is not a file.
    @discardableResult
    public func download(
        request: any NetworkRequest, to destination: DownloadDestination, id: String
    ) throws(NetworkError) -> Bool {
        try refuseWithoutSystem()
        guard request.body == nil else { throw BackgroundTransferRefusal.downloadWithBody.networkError(url: nil) }
        let kind = BackgroundTransferRecord.Kind.download(
            destination: destination.url, replacesExistingFile: destination.replacesExistingFile,
            createsFolders: destination.createsFolders)
        return try start(request, id: id, kind: kind)
    }

    /// Cancels transfer `id`: one under way ends at once, one being prepared once no action's
    /// `prepare` is running (as a module's request does), and the handler gets
    /// ``NetworkError/cancelled``; one that has ended keeps its result. The ID's resume data is
    /// dropped, so its next download starts over. Harmless for an unknown ID. While the ledger
    /// cannot be read (a device locked since it restarted), the cancel waits for the read, and
    /// the transfer ends then, unless it ended first.
    public func cancel(id: String) {
        perform(ledger.withLock { $0.cancel(id: id) })
    }

    /// Takes the completion handler that the system gives the app delegate's
    /// `application(_:handleEventsForBackgroundURLSession:completionHandler:)`, and calls it on the
    /// main queue once the session has delivered its events: after the results, when the module
    /// delivers on the main queue (the default).
    ///
    /// - Returns: `false`, keeping nothing, when `identifier` is another session's: hand it to
    ///   that session's owner. On Linux, where there are no events, the handler is called at once.
    @MainActor
    @discardableResult
    public func handleEvents(
        forBackgroundURLSession identifier: String, completionHandler: @escaping () -> Void
    ) -> Bool {
        guard identifier == self.identifier, !isSecond else { return false }
        guard system != nil else {
            completionHandler()
            return true
        }
        // The system has events for the session: the device may be unlocked now.
        perform(ledger.withLock { $0.wake() })
        for handler in events.handlerGiven(completionHandler) { handler() }
        return true
    }

    // MARK: - Starting a transfer

    /// Refuses a transfer when there is no system to hand it to: in a second instance for the
    /// same state folder, and on Linux.
    private func refuseWithoutSystem() throws(NetworkError) {
        if isSecond { throw BackgroundTransferRefusal.secondInstance(identifier: identifier).networkError(url: nil) }
        guard system != nil else { throw BackgroundTransferRefusal.platform.networkError(url: nil) }
    }

    private func start(
        _ request: any NetworkRequest, id: String, kind: BackgroundTransferRecord.Kind
    ) throws(NetworkError) -> Bool {
        guard serverTrust != nil else { throw BackgroundTransferRefusal.serverTrustUnknown.networkError(url: nil) }
        guard (request.redirectPolicy ?? module.redirectPolicy).isFollow else {
            throw BackgroundTransferRefusal.redirectPolicy.networkError(url: nil)
        }
        var urlRequest = try module.buildRequest(request)
        try Self.removeBody(of: &urlRequest, kind: kind)
        let (requestID, sequenceNumber) = RequestIdentifiers.next(in: module.requestCount)
        let start = BackgroundTransferLedger.Start(
            id: id, token: UUID().uuidString, kind: kind, networkRequest: request,
            acceptableStatusCodes: request.acceptableStatusCodes.resolved(moduleDefault: module.acceptableStatusCodes)
                .closedRanges,
            requestID: requestID, sequenceNumber: sequenceNumber, startDate: Date())
        // The module's pipeline, bounded by the request's timeout as a module's request is.
        let pipeline = module.pipeline
        let preparation = pipeline.preparation(
            of: urlRequest,
            context: {
                let elapsed = Self.seconds(since: start.startDate)
                return pipeline.context(
                    for: start.networkRequest, attempt: 1, sentRequest: nil, requestID: start.requestID,
                    sequenceNumber: start.sequenceNumber, elapsed: elapsed, preparationTime: elapsed)
            },
            // Holds the instance until the preparation ends (its deadline at the latest), so that a
            // transfer whose action completes after the app let go of the instance is not lost.
            completion: { [self] result in
                switch result {
                case .success(let prepared): send(prepared, start)
                case .failure(let error): failPreparation(start, error)
                }
            })
        switch ledger.withLock({ $0.begin(start, preparation: preparation.handle) }) {
        case .begun: break
        case .idTaken: return false
        case .ledgerUnreadable: throw NetworkError(store.notSavedError(url: urlRequest.url))
        }
        preparation.start()
        return true
    }

    /// Checks the prepared request's credentials (unless the app allowed them to follow
    /// redirects) and an upload's file (the actions may have taken long enough for it to go),
    /// writes the transfer down and hands it to the system.
    private func send(_ prepared: URLRequest, _ start: BackgroundTransferLedger.Start) {
        var request = prepared
        do throws(NetworkError) {
            // Checked again: an action may have given the request a body.
            try Self.removeBody(of: &request, kind: start.kind)
            // The system raises an exception for an upload file it cannot open: it is opened
            // here, after the actions, so that only the ledger's save stands between the two.
            if case .upload(let file) = start.kind { _ = try BodyStreamSource.checkedFile(file) }
        } catch {
            return failPreparation(start, error)
        }
        let credentials = CredentialHeaders.names(in: request, extraNames: credentialHeaderNames)
        guard credentialsMayFollowRedirects || credentials.isEmpty else {
            return failPreparation(
                start, BackgroundTransferRefusal.credentials(names: credentials).networkError(url: request.url))
        }
        perform(
            ledger.withLock {
                $0.prepared(
                    id: start.id, token: start.token, request: request, sentDate: Date(),
                    // Header fields, or a password or a secret query item in the URL: resume
                    // data would hold either.
                    carriesCredentials: !credentials.isEmpty
                        || request.url.map { Redaction.default.redacted($0) != $0 } == true)
            })
    }

    /// Takes off `request` the stream of an upload's file (the system reads the file itself)
    /// and refuses any other body: a download has none, and an upload's is its file.
    private static func removeBody(of request: inout URLRequest, kind: BackgroundTransferRecord.Kind)
        throws(NetworkError)
    {
        if let stream = request.httpBodyStream {
            BodyStreams.release(stream)
            request.httpBodyStream = nil
            guard case .upload = kind else {
                throw BackgroundTransferRefusal.downloadWithBody.networkError(url: request.url)
            }
        }
        if request.httpBody != nil {
            let refusal: BackgroundTransferRefusal = kind.isDownload ? .downloadWithBody : .bodyNotAFile
            throw refusal.networkError(url: request.url)
        }
    }

    private func failPreparation(_ start: BackgroundTransferLedger.Start, _ error: NetworkError) {
        perform(ledger.withLock { $0.preparationFailed(id: start.id, token: start.token, error: error) })
    }

    // MARK: - The system's events

    /// Part of an upload's reply arrived; returns `false` when the task must be cancelled (the
    /// reply is too large).
    func systemBodyReceived(token: String, data: Data) -> Bool {
        ledger.withLock { $0.bodyReceived(token: token, data: data, limit: Self.bodyLimit) }
    }

    /// A download's body is in the file at `location`, removed by the system when this returns:
    /// it is moved to the destination (a status the request accepts), or read into the error.
    /// The transfer ends here; the task's completion that follows finds it ended.
    func systemDownloadFinished(
        token: String, location: URL, completion: BackgroundTransferOutcome.SystemCompletion
    ) {
        guard let target = ledger.withLock({ $0.downloadFinished(token: token) }) else { return }
        var completion = completion
        if let status = (completion.response as? HTTPURLResponse)?.statusCode,
            target.acceptableStatusCodes.contains(status)
        {
            do throws(URLError) {
                try DownloadFile(destination: target.destination).adopt(location)
            } catch {
                completion.error = error
            }
        } else if DownloadFile.size(of: location) > Int64(Self.bodyLimit) {
            completion.error = NetworkError.responseTooLarge(limit: Self.bodyLimit)
        } else {
            completion.body = (try? Data(contentsOf: location)) ?? Data()
        }
        perform(ledger.withLock { $0.completed(token: token, completion, limit: Self.bodyLimit) })
    }

    /// A task ended; `resumeData` is what an interrupted download left.
    func systemCompleted(token: String, completion: BackgroundTransferOutcome.SystemCompletion, resumeData: Data?) {
        perform(
            ledger.withLock { $0.completed(token: token, completion, resumeData: resumeData, limit: Self.bodyLimit) })
    }

    /// The session delivered every event: a transfer its listing lacked whose end did not come
    /// is reported lost; then the app delegate's handler is called on the main queue, after the
    /// results delivered so far (the main executor's queue).
    func systemEventsFinished() {
        perform(ledger.withLock { $0.eventsDrained() })
        DispatchQueue.main.async {
            MainActor.assumeIsolated {
                for handler in self.events.eventsFinished() { handler() }
            }
        }
    }

    // MARK: - Performing steps

    /// Performs what the ledger asked, in its order: files (one call to the store), tasks,
    /// timers, deliveries. A transfer whose save failed is not sent: its result could not reach
    /// the app after a relaunch. After a save that reached the disk, the reports that could not
    /// be saved before are tried again.
    private func perform(_ step: BackgroundTransferLedger.Step) {
        let saved = store.apply(step)
        step.preparationToCancel?.cancel()
        if !step.tokensToCancel.isEmpty {
            handOff.withLock { _ in
                for token in step.tokensToCancel { system?.cancel(token: token) }
            }
        }
        if let send = step.send {
            if saved {
                hand(send)
            } else {
                let error = NetworkError(store.notSavedError(url: send.request.url))
                perform(ledger.withLock { $0.notSaved(id: send.id, token: send.token, error: error) })
            }
        }
        for timer in step.timers { arm(timer) }
        for delivery in step.deliveries { deliver(delivery) }
        if step.readsAgain {
            let load = store.load()
            perform(ledger.withLock { $0.read(load) })
        }
        if saved, step.snapshot != nil { perform(ledger.withLock { $0.retryReports() }) }
    }

    private func arm(_ timer: BackgroundTransferLedger.Timer) {
        _ = module.delayScheduler.scheduleLimit(after: timer.delay) { [weak self] in
            guard let self else { return }
            self.perform(self.ledger.withLock { $0.timerFired(timer) })
        }
    }

    private func hand(_ send: BackgroundTransferLedger.Send) {
        let task: BackgroundTaskKind
        switch send.kind {
        case .upload(let file):
            task = .upload(fromFile: file)
        case .download:
            // Resume data that cannot be read any more: the download starts over.
            task = (send.resumes ? store.resumeData(for: send.id) : nil).map { .resumedDownload($0) } ?? .download
        }
        handOff.withLock { _ in
            // A cancel that came since the step was made ends the transfer: it is not sent.
            guard ledger.withLock({ $0.isSent(id: send.id, token: send.token) }) else { return }
            system?.send(send.request, as: task, token: send.token)
        }
    }

    /// Through the module's executor: once the ledger without the transfer is saved
    /// (``BackgroundTransferLedger/reported(id:token:saved:)``), lets the actions validate and
    /// observe the result and hands it to the handler; after a failed save, neither.
    private func deliver(_ delivery: BackgroundTransferLedger.Delivery) {
        module.completionExecutor.execute { [self] in
            let id = delivery.start.id
            if let token = delivery.token {
                guard let step = ledger.withLock({ $0.reporting(id: id, token: token) }) else { return }
                let saved = store.applyReport(step, of: id)
                guard ledger.withLock({ $0.reported(id: id, token: token, saved: saved) }) else { return }
                perform(ledger.withLock { $0.retryReports() })
            }
            handler(id, result(of: delivery))
        }
    }

    /// The result of `delivery`, validated and observed by the actions.
    private func result(of delivery: BackgroundTransferLedger.Delivery) -> Result<NetworkResponse, NetworkError> {
        let start = delivery.start
        let inFlight = delivery.sentDate.map(Self.seconds(since:)) ?? 0
        var result: Result<NetworkResponse, NetworkError>
        var bytes: (sent: Int64, received: Int64) = (0, 0)
        switch delivery.ending {
        case .failure(let error):
            result = .failure(error)
        case .outcome(let outcome):
            result = outcome.result(
                request: delivery.request ?? URLRequest(url: URL(fileURLWithPath: "/")),
                acceptableStatusCodes: AcceptableStatusCodes(closedRanges: start.acceptableStatusCodes),
                duration: inFlight)
            bytes = (outcome.bytesSent, outcome.bytesReceived)
        }
        let pipeline = module.pipeline
        guard !pipeline.actions.isEmpty else { return result }
        let context = pipeline.context(
            for: start.networkRequest, attempt: 1, sentRequest: delivery.request, requestID: start.requestID,
            sequenceNumber: start.sequenceNumber, elapsed: Self.seconds(since: start.startDate),
            preparationTime: max(0, (delivery.sentDate ?? Date()).timeIntervalSince(start.startDate)),
            timeInFlight: inFlight, bytesSent: Self.count(bytes.sent), bytesReceived: Self.count(bytes.received))
        // As the module's last attempt: validated, observed if it was sent, then finished. A
        // download whose validation fails leaves no file.
        let validated =
            delivery.request == nil
            ? pipeline.validated(result, context: context) : pipeline.observe(result, context: context)
        if case .success = result, case .failure = validated, let destination = start.kind.destination {
            try? FileManager.default.removeItem(at: destination.url)
        }
        pipeline.finish(validated, context: context)
        return validated
    }

    private static func seconds(since date: Date) -> TimeInterval {
        max(0, Date().timeIntervalSince(date))
    }

    /// A byte count for the actions' context, clamped to `Int`.
    private static func count(_ bytes: Int64) -> Int {
        Int(clamping: max(0, bytes))
    }
}
