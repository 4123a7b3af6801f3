#if canImport(Network)
    import Network
#endif

/// What the system says of the network path (`NWPathMonitor`'s three states), and the one
/// decision ``NetworkConnectivity`` takes from it: whether a request may be sent.
/// `requiresConnection` counts as reachable: the path is down but a new connection may bring it
/// up (an on-demand VPN, a cellular link to activate), which a request sent does, while a
/// request that waited would sit until its time limit.
enum PathStatus: Equatable {
    /// The path can be used now.
    case satisfied
    /// No path can be used, and a new connection would not bring one up.
    case unsatisfied
    /// No path can be used now, but a new connection may bring one up.
    case requiresConnection

    /// Whether a request may be sent: the path is satisfied, or a connection may satisfy it.
    var isReachable: Bool {
        switch self {
        case .satisfied, .requiresConnection: true
        case .unsatisfied: false
        }
    }
}

#if canImport(Network)
    extension PathStatus {
        /// The status of an `NWPath`. A status a later SDK adds counts as `requiresConnection`,
        /// so as reachable: sending costs one failed attempt, while waiting costs the whole limit.
        init(_ status: NWPath.Status) {
            switch status {
            case .satisfied: self = .satisfied
            case .unsatisfied: self = .unsatisfied
            case .requiresConnection: self = .requiresConnection
            @unknown default: self = .requiresConnection
            }
        }
    }
#endif
