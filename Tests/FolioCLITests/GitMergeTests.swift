import Foundation
import Testing
import FolioTestSupport

/// Two people edit one document on two Git branches, as issue 30 tried it:
/// a copy of `SampleDocuments/Animals.folio` saved once by `folio` and
/// committed; each branch edits it with the built `folio`; then the real
/// `git` merges, rebases or cherry-picks, running `folio merge-file` (set up
/// by `folio git setup`). The merged package must open and hold both sides'
/// edits; overlapping edits leave it open, with the conflict recorded and Git
/// reporting it until the user resolves it in `folio`.
@Suite(.enabled(if: GitRepository.isAvailable, GitRepository.unavailableReason))
struct GitMergeTests {
    static let package = "Zoo.folio"
    /// The sample's Mammal category and one of its animals (ids of the format-2 sample, kept by every save).
    static let mammal = "24"
    static let animal = "25"

    /// `folio Zoo.folio` running `script` (a save at the end) in the repository.
    static func edit(_ repository: GitRepository, _ script: String) throws -> ProgramRun {
        let run = try runFolio(
            [repository.file(package).path, "--save-at-end", "--yes"], input: script, in: repository.url,
            environment: GitRepository.environment)
        #expect(run.status == 0, "folio failed: \(run.stdout)\(run.stderr)")
        return run
    }

    /// What `script` prints for the package as it is in the work tree now.
    static func read(_ repository: GitRepository, _ script: String) throws -> ProgramRun {
        try runFolio([repository.file(package).path], input: script, in: repository.url, environment: GitRepository.environment)
    }

    /// A repository set up for Folio with the sample saved once by folio (so in
    /// the current format) and committed on `main`, and branches `a` and `b` at it.
    static func repository() throws -> GitRepository {
        let repository = try GitRepository()
        try repository.copySample("Animals.folio", to: package)
        let setup = try runFolio(["git", "setup"], in: repository.url, environment: GitRepository.environment)
        #expect(setup.status == 0, "\(setup.stderr)")
        // One save writes the current format (a package saved by an older Folio is rewritten by its next save).
        _ = try edit(repository, "set \(animal) diet=\"herbivorous\"\n")
        _ = try repository.commitAll("the zoo")
        try repository.createBranch("a")
        try repository.createBranch("b")
        return repository
    }

    /// Branch a inserts Lion into Mammal; branch b inserts Tiger into Mammal and sets one animal's diet.
    static func disjointEdits(_ repository: GitRepository) throws {
        try repository.switchTo("a")
        _ = try edit(repository, "insert Animal name=\"Lion\" diet=\"carnivorous\" category=\(mammal)\n")
        _ = try repository.commitAll("a: Lion")
        try repository.switchTo("b")
        _ = try edit(
            repository,
            "insert Animal name=\"Tiger\" diet=\"carnivorous\" category=\(mammal)\n"
                + "set \(animal) diet=\"omnivorous\"\n")
        _ = try repository.commitAll("b: Tiger, a diet")
    }

    /// Checks the package in the work tree holds both branches' edits and no conflict.
    static func expectBothEdits(_ repository: GitRepository) throws {
        let run = try read(
            repository,
            "count Animal\nlist Animal where category.name == \"Mammal\" sort name\n"
                + "show \(animal)\nconflicts\n")
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("32\n"), "30 animals and the two new ones: \(run.stdout)")
        #expect(run.stdout.contains("Lion"), "\(run.stdout)")
        #expect(run.stdout.contains("Tiger"), "\(run.stdout)")
        #expect(run.stdout.contains("omnivorous"), "\(run.stdout)")
        #expect(run.stdout.contains("no conflicts"), "\(run.stdout)")
    }

    @Test("git merge of two branches that inserted into one category and edited another animal: both kept, no conflict")
    func mergeDisjoint() throws {
        let repository = try Self.repository()
        try Self.disjointEdits(repository)
        try repository.switchTo("a")
        let merge = try repository.merge("b")
        #expect(merge.status == 0, "\(merge.stdout)\(merge.stderr)")
        #expect(try repository.conflictedPaths().isEmpty)
        try Self.expectBothEdits(repository)
    }

    @Test("after git merge, 'changes since' the merging branch's last token lists a transaction by merge with the other branch's edits")
    func mergeTransactionAfterGitMerge() throws {
        let repository = try Self.repository()
        // b saves first: its transaction is numbered below a's last token, which an app syncing from a holds.
        try repository.switchTo("b")
        _ = try Self.edit(
            repository,
            "insert Animal name=\"Tiger\" diet=\"carnivorous\" category=\(Self.mammal)\n"
                + "set \(Self.animal) diet=\"omnivorous\"\n")
        _ = try repository.commitAll("b: Tiger, a diet")
        try repository.switchTo("a")
        _ = try Self.edit(repository, "insert Animal name=\"Lion\" diet=\"carnivorous\" category=\(Self.mammal)\n")
        _ = try repository.commitAll("a: Lion")
        let before = try Self.read(repository, "changes\n")
        let token = try #require(before.lines.last { $0.hasPrefix("transaction ") }?.split(separator: " ").dropFirst().first)
        let merge = try repository.merge("b")
        #expect(merge.status == 0, "\(merge.stdout)\(merge.stderr)")
        let changes = try Self.read(repository, "changes since \(token)\n")
        #expect(changes.status == 0, "\(changes.stdout)\(changes.stderr)")
        let headings = changes.lines.filter { $0.hasPrefix("transaction ") }
        #expect(headings.count == 1, "b's save is below the token; the merge above it: \(changes.stdout)")
        #expect(headings.first?.contains("  by merge  ") == true, "\(changes.stdout)")
        #expect(changes.lines.contains("  update Animal #\(Self.animal): diet"), "\(changes.stdout)")
        #expect(changes.lines.contains { $0.hasPrefix("  insert Animal #") }, "\(changes.stdout)")
    }

    @Test("git rebase and git cherry-pick of the same edits give the same document")
    func rebaseAndCherryPick() throws {
        let repository = try Self.repository()
        try Self.disjointEdits(repository)
        try repository.switchTo("b")
        try repository.createBranch("b2")
        let rebase = try repository.rebase(onto: "a")
        #expect(rebase.status == 0, "\(rebase.stdout)\(rebase.stderr)")
        try Self.expectBothEdits(repository)

        try repository.switchTo("a")
        let pick = try repository.cherryPick(try repository.head("b2"))
        #expect(pick.status == 0, "\(pick.stdout)\(pick.stderr)")
        try Self.expectBothEdits(repository)
    }

    @Test("both branches set one animal's diet: Git reports the conflict, the package opens with it recorded, resolve then commit")
    func overlappingEdits() throws {
        let repository = try Self.repository()
        try repository.switchTo("a")
        _ = try Self.edit(repository, "set \(Self.animal) diet=\"carnivorous\"\n")
        _ = try repository.commitAll("a: carnivorous")
        try repository.switchTo("b")
        _ = try Self.edit(repository, "set \(Self.animal) diet=\"insectivorous\"\n")
        _ = try repository.commitAll("b: insectivorous")
        try repository.switchTo("a")
        let merge = try repository.merge("b")
        #expect(merge.status != 0, "Git must report the conflict: \(merge.stdout)")
        #expect(try repository.conflictedPaths().contains { $0.hasPrefix(Self.package + "/parts/Animal/") })

        let opened = try Self.read(repository, "show \(Self.animal)\nconflicts\nstatus\n")
        #expect(opened.status == 0, "\(opened.stdout)\(opened.stderr)")
        #expect(opened.stdout.contains("carnivorous"), "ours is kept: \(opened.stdout)")
        #expect(opened.stdout.contains("1. Animal#\(Self.animal).diet: both sides changed it"), "\(opened.stdout)")
        #expect(opened.stdout.contains("insectivorous"), "theirs is recorded: \(opened.stdout)")
        #expect(opened.stdout.contains("conflicts: 1 recorded"), "\(opened.stdout)")

        _ = try Self.edit(repository, "resolve 1 theirs\n")
        let resolved = try Self.read(repository, "show \(Self.animal)\nconflicts\n")
        #expect(resolved.stdout.contains("insectivorous"), "\(resolved.stdout)")
        #expect(resolved.stdout.contains("no conflicts"), "\(resolved.stdout)")
        _ = try repository.git("add", "-A")
        _ = try repository.git("commit", "-q", "--no-edit")
        #expect(try repository.status().isEmpty)
    }

    @Test("one branch deletes a category (cascade), the other adds an animal to it: the package opens, the removal recorded")
    func deleteAgainstInsert() throws {
        let repository = try Self.repository()
        try repository.switchTo("a")
        _ = try Self.edit(repository, "delete \(Self.mammal)\n")
        _ = try repository.commitAll("a: no mammals")
        try repository.switchTo("b")
        _ = try Self.edit(repository, "insert Animal name=\"Lion\" diet=\"carnivorous\" category=\(Self.mammal)\n")
        _ = try repository.commitAll("b: Lion")
        try repository.switchTo("a")
        _ = try repository.merge("b")
        let opened = try Self.read(repository, "count AnimalCategory\nlist Animal where name == \"Lion\"\nconflicts\n")
        #expect(opened.status == 0, "the merged package opens: \(opened.stdout)\(opened.stderr)")
        #expect(opened.stdout.contains("Lion"), "the Lion is recorded, not lost: \(opened.stdout)")
    }
}
