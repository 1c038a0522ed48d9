/// One section of a sectioned ``ResultsObserver``'s results: the models that
/// share a section title, in result order — SwiftData's `ResultsSection`.
///
/// ```swift
/// if let sections = observer.sections {       // a sectioned observer always has them
///     for section in sections {
///         print(section.title)                  // "Fiction", …
///         for book in section { print(book.title) }
///     }
/// }
/// ```
///
/// A snapshot: it holds the results it was made from, and its models are made
/// as they are read (see ``FetchResultsCollection``).
public struct ResultsSection<Element: PersistentModel, SectionTitle: Hashable>: RandomAccessCollection, Identifiable {
    /// Positions are offsets from the section's first model, as in an array.
    public typealias Index = Int

    /// The value of the section key shared by every model of the section.
    public let title: SectionTitle
    /// The section's title: sections are identified by it.
    public var id: SectionTitle { title }

    let results: FetchResultsCollection<Element>
    /// The section's models' positions in ``results``.
    let positions: [Int]

    init(title: SectionTitle, results: FetchResultsCollection<Element>, positions: [Int]) {
        self.title = title
        self.results = results
        self.positions = positions
    }

    /// The position of the first model: always 0.
    public var startIndex: Int { 0 }
    /// One past the last model: the number of models in the section.
    public var endIndex: Int { positions.count }

    /// The model at a position of the section.
    ///
    /// - Complexity: that of reading ``FetchResultsCollection`` (O(1) for a model already made).
    public subscript(position: Int) -> Element { results[positions[position]] }
}
