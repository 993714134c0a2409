package dev.orchestrate.cli;

import dev.orchestrate.app.Memories;
import dev.orchestrate.cli.live.TerminalText;
import dev.orchestrate.limits.Quote;
import dev.orchestrate.memory.MemoryItem;
import dev.orchestrate.memory.MemoryKind;
import dev.orchestrate.memory.NewMemory;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateDirectory;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code orchestrate memory list|add|import|supersede}: the project memory. */
@Command(name = "memory", mixinStandardHelpOptions = true,
    description = {"Project memory: semantic (facts), procedural (how-tos) and episodic (what happened) "
        + "items. Semantic, procedural and rejected-path-tagged items are load-bearing: always in "
        + "prompts, never compacted. Needs only the state directory; safe while a run is active."},
    subcommands = {MemoryCommand.ListCommand.class, MemoryCommand.AddCommand.class,
        MemoryCommand.ImportCommand.class, MemoryCommand.SupersedeCommand.class})
final class MemoryCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    throw CliException
        .usage("memory needs a subcommand: list, add, import or supersede (see 'orchestrate memory --help')");
  }

  static MemoryKind kind(String key) {
    try {
      return MemoryKind.fromKey(key);
    } catch (IllegalArgumentException e) {
      throw CliException.usage("--kind: " + e.getMessage());
    }
  }

  static Map<String, Object> toJson(MemoryItem item) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("id", item.id());
    row.put("kind", item.kind().key());
    row.put("title", item.title());
    row.put("content", item.content());
    row.put("tags", item.tags());
    row.put("created_at", Json.timestamp(item.createdAt()));
    row.put("load_bearing", item.isLoadBearing());
    return row;
  }

  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "List active (not superseded) memories in insertion order.")
  static final class ListCommand implements Callable<Integer>, FastPath.Command {
    @Mixin
    Root root;

    @Spec
    CommandSpec spec;

    @Option(names = "--kind", paramLabel = "KIND", description = "Only this kind: semantic, procedural or episodic")
    String kind;

    @Option(names = "--tag", paramLabel = "TAG", description = "Only items with this tag")
    String tag;

    @Option(names = "--json", description = "Print one JSON document (kind \"memory\") on stdout")
    boolean json;

    @Override
    public Integer call() {
      return run(spec.commandLine().getOut(), spec.commandLine().getErr());
    }

    /** The command with its options set, writing to {@code out} (picocli's, or {@link FastPath}'s). */
    @Override
    public int run(PrintWriter out, PrintWriter err) {
      MemoryKind k = kind == null ? null : kind(kind);
      StateBackend backend = root.command().backend();
      StateDirectory dir = backend.directory();
      List<MemoryItem> items = Memories.list(backend, k, tag);
      if (json) {
        Map<String, Object> doc = Json.envelope("memory");
        List<Map<String, Object>> rows = new ArrayList<>();
        items.forEach(i -> rows.add(toJson(i)));
        doc.put("items", rows);
        Json.print(out, doc);
        return ExitCode.OK;
      }
      if (items.isEmpty()) {
        out.println("No memories" + (k != null || tag != null ? " match" : " yet") + " in " + dir.root());
      } else {
        Table table = new Table("ID", "KIND", "TAGS", "LB", "CONTENT");
        for (MemoryItem i : items) {
          String text = i.title().isBlank() ? i.content() : i.title() + ": " + i.content();
          table.add(i.id(), i.kind().key(), String.join(",", i.tags()), i.isLoadBearing() ? "yes" : "-",
              TerminalText.oneLine(text));
        }
        table.print(out);
        out.println(items.size() + (items.size() == 1 ? " memory" : " memories") + " (LB: load-bearing)");
      }
      out.flush();
      return ExitCode.OK;
    }
  }

  @Command(name = "add", mixinStandardHelpOptions = true,
      description = "Add a memory (or replace the one with the same --id). Prints its id.")
  static final class AddCommand implements Callable<Integer> {
    @Mixin
    Root root;

    @Spec
    CommandSpec spec;

    @Option(names = "--kind", paramLabel = "KIND", required = true,
        description = "semantic, procedural or episodic")
    String kind;

    @Option(names = "--tag", paramLabel = "TAG",
        description = "A tag (repeatable); rejected-path makes it load-bearing")
    List<String> tags = new ArrayList<>();

    @Option(names = "--title", paramLabel = "TITLE", description = "A short title")
    String title;

    @Option(names = "--id", paramLabel = "ID", description = "Its id (default: generated); an existing id is replaced")
    String id;

    @Option(names = "--json", description = "Print the stored item as JSON (kind \"memory\")")
    boolean json;

    @Parameters(index = "0", paramLabel = "TEXT", description = "The content")
    String text;

    @Override
    public Integer call() {
      MemoryKind k = kind(kind);
      if (text.isBlank()) {
        throw CliException.usage("memory add: TEXT is empty");
      }
      if (id != null && id.isBlank()) {
        throw CliException.usage("--id is empty; leave it out to have one generated");
      }
      for (String t : tags) {
        if (t.isBlank()) {
          throw CliException.usage("--tag is empty");
        }
      }
      MemoryItem stored = Memories.add(root.command().backend(), new NewMemory(id, k, title, text, tags, null),
          Clock.systemUTC().instant());
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        Map<String, Object> doc = Json.envelope("memory");
        doc.put("items", List.of(toJson(stored)));
        Json.print(out, doc);
      } else {
        out.println(TerminalText.safe(stored.id()));
        out.flush();
      }
      return ExitCode.OK;
    }
  }

  @Command(name = "import", mixinStandardHelpOptions = true,
      description = {"Import memories from a JSON Lines file, one per line, in file order:",
          "  {\"id\": \"optional\", \"kind\": \"semantic|procedural|episodic\",",
          "   \"title\": \"optional\", \"content\": \"...\", \"tags\": [\"optional\"]}",
          "Every line is checked first: a bad line is named and nothing is imported.",
          "A line without an id gets one derived from its content: importing the same file again",
          "(say after an import was killed part-way) updates those memories, it does not add them twice."})
  static final class ImportCommand implements Callable<Integer> {
    @Mixin
    Root root;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "The JSON Lines file")
    Path file;

    @Option(names = "--json",
        description = "Print {\"kind\": \"memory_import\", \"imported\": N, \"added\": M} on stdout")
    boolean json;

    @Override
    public Integer call() {
      if (!Files.isRegularFile(file)) {
        throw CliException.usage("import file " + file + " " + InputFiles.whyNotAFile(file));
      }
      Memories.Imported done;
      done = Memories.importFile(root.command().backend(), file, Instant.now());
      long imported = done.imported();
      long added = done.added();
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        Map<String, Object> doc = Json.envelope("memory_import");
        doc.put("imported", imported);
        doc.put("added", added);
        Json.print(out, doc);
      } else {
        out.println("imported " + imported + (imported == 1 ? " memory" : " memories") + " from " + file
            + (added == imported ? "" : ": " + added + " new, " + (imported - added) + " already there (updated)"));
        out.flush();
      }
      return ExitCode.OK;
    }
  }

  @Command(name = "supersede", mixinStandardHelpOptions = true,
      description = "Mark memory ID as replaced by another (which must exist); it leaves prompts and listings.")
  static final class SupersedeCommand implements Callable<Integer> {
    @Mixin
    Root root;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "ID", description = "The memory replaced")
    String id;

    @Option(names = "--by", paramLabel = "ID", required = true, description = "The memory that replaces it")
    String by;

    @Option(names = "--json", description = "Print one JSON document (kind \"memory_supersede\") on stdout")
    boolean json;

    @Override
    public Integer call() {
      StateBackend backend = root.command().backend();
      if (!backend.exists()) {
        throw CliException.usage("no memory with id " + Quote.value(id) + " (no state database in "
            + backend.directory().root() + ")");
      }
      Memories.supersede(backend, id, by, Clock.systemUTC().instant());
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        Map<String, Object> doc = Json.envelope("memory_supersede");
        doc.put("id", id);
        doc.put("superseded_by", by);
        Json.print(out, doc);
        return ExitCode.OK;
      }
      out.println(TerminalText.safe(id + " superseded by " + by));
      out.flush();
      return ExitCode.OK;
    }
  }
}
