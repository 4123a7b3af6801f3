import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a session learned about one attempt besides its answer: the phases the platform
/// measured, and whether the answer came from a call shared with other requests.
package struct AttemptObservations: Sendable, Equatable {
    /// The platform's timings of the attempt (``RequestPhases``); `nil` where none were collected.
    package var phases: RequestPhases?
    /// Whether the attempt joined a call that another request of a ``DeduplicatedSession``
    /// started, and got that call's answer.
    package var joinedSharedCall = false
    /// How a ``CachedSession`` answered from memory, `nil` when it did not: written by the
    /// module from the response itself (``CacheStatus/Answer``), for a success or an HTTP error.
    package var cacheAnswer: CacheAnswer?
    /// The status of the HTTP response that came, whatever an action's `validate` made of it;
    /// `nil` when none came. Written by the module.
    package var statusCode: Int?

    /// How a cache answered.
    package enum CacheAnswer: Sendable, Equatable {
        case fresh, stale
    }

    package init(phases: RequestPhases? = nil, joinedSharedCall: Bool = false, cacheAnswer: CacheAnswer? = nil) {
        self.phases = phases
        self.joinedSharedCall = joinedSharedCall
        self.cacheAnswer = cacheAnswer
    }
}

/// Where a session writes ``AttemptObservations`` for the attempt whose ``TransferOptions``
/// carry it, before it calls that attempt's completion handler; the module reads them in the
/// handler. Only made when an action reads them (tracing, metrics), so that no other request
/// pays for it.
package final class AttemptRecorder: Sendable {
    private let state = LockedState(AttemptObservations())

    package init() {}

    /// What was written so far.
    package var observations: AttemptObservations {
        state.withLock { $0 }
    }

    /// Records the platform's timings.
    package func record(phases: RequestPhases?) {
        state.withLock { $0.phases = phases }
    }

    /// Records the status of the response the session handed over, if any, and whether the
    /// framework's cache answered.
    package func record(answeredBy response: URLResponse?) {
        guard let http = response as? HTTPURLResponse else { return }
        let cacheAnswer: AttemptObservations.CacheAnswer? =
            http is CacheStatus.Answer ? (CacheStatus.isStale(http) ? .stale : .fresh) : nil
        let statusCode = http.statusCode
        state.withLock { state in
            state.statusCode = statusCode
            state.cacheAnswer = cacheAnswer
        }
    }

    /// Records what the shared call of a ``DeduplicatedSession`` observed, and whether this
    /// attempt joined it rather than started it.
    package func record(_ observations: AttemptObservations, joined: Bool) {
        state.withLock { state in
            state = observations
            state.joinedSharedCall = joined || observations.joinedSharedCall
        }
    }
}
