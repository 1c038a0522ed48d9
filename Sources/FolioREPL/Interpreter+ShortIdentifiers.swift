import FolioCore
import Foundation

/// Short identifiers: an object's id may be typed as a trailing part of its
/// decimal digits, as Git accepts a short hash.
///
/// Identifiers are `lane << 32 | seq` (`7483920175308390401`): one writer's
/// objects share their leading digits and differ at the end, so the end is
/// what names one. Wherever an id is typed (`show 401`, `Animal#0401`,
/// `link 401 category 377`, `category=377`, `animals=[401, 402]`), a trailing
/// part of at least ``shortIdentifierMinimum`` digits names the one live
/// object of the entity (the one given, or the one the place takes) whose
/// digits end with it. The full id always works and always wins: a number that
/// is some object's whole id names that object. Two or more matches are an
/// error listing up to five of them.
extension Interpreter {
    /// The fewest trailing digits that name an object.
    public static let shortIdentifierMinimum = 3

    /// What a typed short id names.
    enum ShortIdentifierMatch {
        /// Exactly one object.
        case one(PersistentIdentifier)
        /// None.
        case none
        /// Several: the first five by id, and how many in all.
        case several([PersistentIdentifier], count: Int)
    }

    /// The objects, among `candidates`, whose decimal id ends with `digits`
    /// (ASCII digits only; fewer than ``shortIdentifierMinimum`` or more than
    /// 19 match nothing: 20 digits are a whole id).
    static func shortIdentifierMatch(_ digits: Substring, among candidates: [PersistentIdentifier]) -> ShortIdentifierMatch {
        guard digits.count >= shortIdentifierMinimum, digits.count <= 19,
            digits.unicodeScalars.allSatisfy({ $0.isASCII && $0.properties.numericType != nil }),
            let value = UInt64(digits)
        else { return .none }
        var modulus: UInt64 = 1
        for _ in 0..<digits.count { modulus *= 10 }
        let smallest = modulus / 10  // an id with fewer digits than typed does not end with them
        var matches: [PersistentIdentifier] = []
        for id in candidates where id.id % modulus == value && id.id >= smallest {
            matches.append(id)
        }
        switch matches.count {
        case 0: return .none
        case 1: return .one(matches[0])
        default:
            return .several(Array(matches.sorted { $0.id < $1.id }.prefix(5)), count: matches.count)
        }
    }

    /// The live objects of `entity` (every entity when nil) whose id ends with `digits`.
    func shortIdentifierMatch(_ digits: Substring, entity: String?) -> ShortIdentifierMatch {
        guard digits.count >= Self.shortIdentifierMinimum else { return .none }
        let entities = entity.map { [$0] } ?? schema.entities.map(\.name)
        var candidates: [PersistentIdentifier] = []
        for name in entities {
            // Every entity's own objects once; one entity's with its subentities'.
            candidates += (try? context.fetchIdentifiers(DynamicFetchDescriptor(entity: name, includesSubentities: entity != nil))) ?? []
        }
        return Self.shortIdentifierMatch(digits, among: candidates)
    }

    /// The object a short id names, or nil when it names none; an error when it names several.
    /// Deleted objects (until saved) are named too, to say they are deleted.
    func shortIdentifier(_ digits: Substring, entity: String?, typed: String, column: Int)
        throws(CommandError) -> PersistentIdentifier?
    {
        switch shortIdentifierMatch(digits, entity: entity) {
        case .one(let id):
            return id
        case .several(let first, let count):
            let more = count > first.count ? " and \(count - first.count) more" : ""
            throw CommandError(
                "'\(typed)' is ambiguous: it ends \(count) ids (\(first.map(\.description).joined(separator: ", "))"
                    + "\(more)); type more of its digits, or the whole id", column: column)
        case .none:
            let deleted = context.deletedIdentifiers.filter { entity == nil || $0.entityName == entity }
            if case .one(let id) = Self.shortIdentifierMatch(digits, among: deleted) {
                throw CommandError("\(id) is deleted ('undo' brings it back)", column: column)
            }
            return nil
        }
    }
}
