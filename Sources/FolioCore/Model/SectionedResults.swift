/// A sectioned ``ResultsObserver``'s results: a random-access collection of
/// ``ResultsSection``s, ordered by each title's first appearance in the
/// sorted results — SwiftData's `SectionedResults`.
///
/// ```swift
/// let fiction = observer.sections?[sectionTitle: "Fiction"]?.count ?? 0
/// ```
///
/// A snapshot of the results when it was read; read the observer's
/// ``ResultsObserver/sections`` again for the current one.
public struct SectionedResults<Element: PersistentModel, SectionTitle: Hashable>: RandomAccessCollection {
    /// Positions are offsets from the first section, as in an array.
    public typealias Index = Int

    private let sections: [ResultsSection<Element, SectionTitle>]
    private let positions: [SectionTitle: Int]

    init(_ sections: [ResultsSection<Element, SectionTitle>]) {
        self.sections = sections
        var positions: [SectionTitle: Int] = [:]
        for (position, section) in sections.enumerated() { positions[section.title] = position }
        self.positions = positions
    }

    /// The position of the first section: always 0.
    public var startIndex: Int { 0 }
    /// One past the last section: the number of sections.
    public var endIndex: Int { sections.count }

    /// The section at a position.
    public subscript(position: Int) -> ResultsSection<Element, SectionTitle> { sections[position] }

    /// The section titles, in order.
    public var sectionTitles: [SectionTitle] { sections.map(\.title) }

    /// The section with this title, or `nil` when there is none.
    ///
    /// - Complexity: O(1).
    public subscript(sectionTitle title: SectionTitle) -> ResultsSection<Element, SectionTitle>? {
        positions[title].map { sections[$0] }
    }
}
