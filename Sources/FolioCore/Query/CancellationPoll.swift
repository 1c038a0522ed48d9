/// How a long loop of the library asks a caller's cancellation check
/// (``ModelContext/cancellationCheck``) whether to stop, without paying for a
/// call at every step: the check runs once every ``interval`` steps, so a
/// scan of a million rows asks it about 250 times.
///
/// The loops that poll are the ones whose length follows the document: a
/// fetch's scan and sort, a deletion's cascade and preview. Every one of them
/// only reads; a delete polls while it plans and never once it has begun to
/// change the graph, so a stop leaves nothing half done.
struct CancellationPoll {
    /// Steps between two calls of the check: a power of two, so counting is a mask.
    static let interval = 4096
    private let check: (() -> Bool)?
    private var steps = 0

    /// A poll of `check`; `nil` never stops.
    init(_ check: (() -> Bool)?) {
        self.check = check
    }

    /// Counts one step; `true` when this step ran the check and it asked to stop.
    mutating func shouldStop() -> Bool {
        guard let check else { return false }
        steps &+= 1
        return steps & (Self.interval - 1) == 0 && check()
    }

    /// Runs the check now (between two phases of a long call): `true` to stop.
    func shouldStopNow() -> Bool {
        check?() ?? false
    }
}
