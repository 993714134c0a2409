package dev.orchestrate.cli;

import dev.orchestrate.app.ItemDiff;
import dev.orchestrate.cli.live.TerminalText;
import dev.orchestrate.limits.Quote;
import dev.orchestrate.workspace.BranchDiff;
import dev.orchestrate.workspace.DecodedOutput;
import dev.orchestrate.workspace.Git;
import dev.orchestrate.yaml.DidYouMean;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code orchestrate diff ID}: an item's change against its base, as a patch, a file summary or JSON. */
@Command(name = "diff", mixinStandardHelpOptions = true,
    description = {"Show an item's change against its base: what its phases committed on its branch "
        + "(orchestrate/ID) since it forked from the base branch, as git diff base...orchestrate/ID shows it "
        + "(the running attempt's uncommitted edits are not in it). --stat lists the files with their lines "
        + "added and removed instead.",
        "On a terminal the patch is paged, like git's: $ORCHESTRATE_PAGER, else $PAGER, else less -FRX "
            + "(--no-pager: none). Control characters in the change are shown as \\x1b and the like, never sent "
            + "to the terminal. The patch is cut at " + ItemDiff.TEXT_MAX_BYTES / (1024 * 1024) + " MiB ("
            + ItemDiff.JSON_MAX_BYTES / (1024 * 1024)
            + " MiB in --json). Reads the state and the repository; nothing of "
            + "the repository runs (no hooks, pagers, external diffs or text conversions it configures); safe "
            + "while a run is active."},
    footerHeading = "%nExit codes:%n",
    footer = {"  0    printed", "  1    git cannot read the item's branch (its repository or commits",
        "       are gone)", "  2    unknown item, or an item with no branch yet (it never ran a",
        "       phase in a worktree)"})
final class DiffCommand implements Callable<Integer> {
  /** Whether stdout is a terminal; tests set it. */
  static BooleanSupplier terminal = Pager::stdoutIsTerminal;

  @Mixin
  Root root;

  @Spec
  CommandSpec spec;

  @Mixin
  JsonOutput output = new JsonOutput();

  @Parameters(index = "0", paramLabel = "ID", description = "The item")
  String id;

  @Option(names = "--stat", description = "The files changed with their lines added and removed, not the patch")
  boolean stat;

  @Option(names = "--no-pager", description = "Never page the output")
  boolean noPager;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Git git = new Git();
    ItemDiff.Found found = found(ItemDiff.find(root.command().backend(), git, id));
    if (output.json) {
      Json.print(out, toJson(git, found, stat));
      return ExitCode.OK;
    }
    Optional<List<String>> pager = noPager || !terminal.getAsBoolean() ? Optional.empty()
        : Pager.command(root.command().env());
    BranchDiff.Patch[] patch = {null};
    Pager.Body body = w -> patch[0] = stat ? printStat(w, git, found) : printPatch(w, git, found);
    try {
      if (pager.isPresent()) {
        Pager.page(pager.get(), body);
      } else {
        body.write(out);
      }
    } catch (IOException e) {
      if (pager.isPresent() && patch[0] == null) {
        throw CliException.failure("cannot start the pager " + pager.get() + ": " + e.getMessage()
            + " (set PAGER, or --no-pager)");
      }
    }
    out.flush();
    if (patch[0] != null && patch[0].cut()) {
      err.println("orchestrate: the diff was cut at " + patch[0].bytes() + " bytes; git diff "
          + found.range().base() + " " + found.range().head() + " in the repository shows all of it");
    }
    return ExitCode.OK;
  }

  private ItemDiff.Found found(ItemDiff.Lookup lookup) {
    if (lookup instanceof ItemDiff.NoState) {
      throw CliException.usage("unknown item " + Quote.value(id) + ": there is no state in "
          + root.command().backend().directory().root() + " yet");
    }
    if (lookup instanceof ItemDiff.Unknown unknown) {
      throw CliException.usage("unknown item " + Quote.value(id)
          + DidYouMean.closest(id, unknown.known()).map(s -> "; did you mean '" + s + "'?").orElse("")
          + " (orchestrate status lists them)");
    }
    if (lookup instanceof ItemDiff.NoBranch none) {
      throw CliException.usage("item " + Quote.value(id) + " has no branch yet: no phase of it has run in a "
          + "worktree (execution.workspace: worktree); it is " + none.item().status().key()
          + " (orchestrate status " + TerminalText.safe(id) + " shows it)");
    }
    return (ItemDiff.Found) lookup;
  }

  private static BranchDiff.Patch printPatch(PrintWriter w, Git git, ItemDiff.Found found) throws IOException {
    EscapedText sink = new EscapedText(w);
    BranchDiff.Patch patch = ItemDiff.patch(git, found, ItemDiff.TEXT_MAX_BYTES, sink);
    sink.close();
    return patch;
  }

  private static BranchDiff.Patch printStat(PrintWriter w, Git git, ItemDiff.Found found) throws IOException {
    BranchDiff.Range range = found.range();
    BranchDiff.Stat s = ItemDiff.stat(git, found);
    w.println(TerminalText.safe(range.branch()) + " against " + TerminalText.safe(range.baseBranch())
        + ": merge base " + shortId(range.base()) + ", head " + shortId(range.head()));
    for (BranchDiff.FileDiff f : s.listed()) {
      String lines = f.binary() ? "binary" : "+" + f.additions() + " -" + f.deletions();
      w.println(String.format(" %-12s %-14s %s", f.status(), lines, TerminalText.safe(f.path())
          + (f.oldPath() == null ? "" : " (from " + TerminalText.safe(f.oldPath()) + ")")));
    }
    if (s.files() > s.listed().size()) {
      w.println(" ... and " + (s.files() - s.listed().size()) + " more files");
    }
    w.println(s.files() + (s.files() == 1 ? " file" : " files") + " changed, +" + s.additions() + " -"
        + s.deletions() + " lines");
    if (w.checkError()) {
      throw new IOException("output closed");
    }
    return null;
  }

  private static String shortId(String commit) {
    return commit.length() > 12 ? commit.substring(0, 12) : commit;
  }

  static Map<String, Object> toJson(Git git, ItemDiff.Found found, boolean statOnly) {
    BranchDiff.Range range = found.range();
    BranchDiff.Stat s = ItemDiff.stat(git, found);
    Map<String, Object> doc = Json.envelope("diff");
    doc.put("item", found.item().id());
    doc.put("status", found.item().status().key());
    doc.put("branch", range.branch());
    doc.put("base_branch", range.baseBranch());
    doc.put("base", range.base());
    doc.put("head", range.head());
    doc.put("files_changed", s.files());
    doc.put("additions", s.additions());
    doc.put("deletions", s.deletions());
    List<Map<String, Object>> files = new ArrayList<>();
    for (BranchDiff.FileDiff f : s.listed()) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("path", f.path());
      row.put("old_path", f.oldPath());
      row.put("status", f.status());
      row.put("additions", f.additions());
      row.put("deletions", f.deletions());
      row.put("binary", f.binary());
      files.add(row);
    }
    doc.put("files", files);
    doc.put("files_not_listed", s.files() - s.listed().size());
    patchJson(git, found, statOnly, doc);
    return doc;
  }

  /** {@code patch} (git's text, cut at its cap), {@code patch_bytes} and {@code patch_cut}; null with --stat. */
  private static void patchJson(Git git, ItemDiff.Found found, boolean statOnly, Map<String, Object> doc) {
    if (statOnly) {
      doc.put("patch", null);
      doc.put("patch_bytes", null);
      doc.put("patch_cut", null);
      return;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BranchDiff.Patch patch;
    try {
      patch = ItemDiff.patch(git, found, ItemDiff.JSON_MAX_BYTES, bytes);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e); // a byte array cannot fail
    }
    doc.put("patch", bytes.toString(StandardCharsets.UTF_8));
    doc.put("patch_bytes", patch.bytes());
    doc.put("patch_cut", patch.cut());
  }

  /**
   * git's bytes as text for a terminal: decoded as UTF-8 as they come (a malformed byte becomes
   * U+FFFD), every control character but line breaks and tabs made visible
   * ({@link TerminalText#safeLines}). Holds one buffer whatever the size; a closed output (a pager
   * that quit, a closed pipe) is an {@link IOException}, which stops git.
   */
  static final class EscapedText extends DecodedOutput {
    private final PrintWriter out;

    EscapedText(PrintWriter out) {
      this.out = out;
    }

    @Override
    protected void decoded(CharBuffer text) throws IOException {
      out.write(TerminalText.safeLines(text.toString()));
      if (out.checkError()) {
        throw new IOException("output closed");
      }
    }
  }
}
