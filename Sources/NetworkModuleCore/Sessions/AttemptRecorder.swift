import Foundation

/// What a session learned about one attempt besides its answer: the phases the platform
/// measured, and whether the answer came from a call shared with other requests.
package struct AttemptObservations: Sendable, Equatable {
    /// The platform's timings of the attempt (``RequestPhases``); `nil` where none were collected.
    package var phases: RequestPhases?
    /// Whether the attempt joined a call that another request of a ``DeduplicatedSession``
    /// started, and got that call's answer.
    package var joinedSharedCall = false

    package init(phases: RequestPhases? = nil, joinedSharedCall: Bool = false) {
        self.phases = phases
        self.joinedSharedCall = joinedSharedCall
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

    /// Records what the shared call of a ``DeduplicatedSession`` observed, and whether this
    /// attempt joined it rather than started it.
    package func record(_ observations: AttemptObservations, joined: Bool) {
        state.withLock { state in
            state = observations
            state.joinedSharedCall = joined || observations.joinedSharedCall
        }
    }
}
