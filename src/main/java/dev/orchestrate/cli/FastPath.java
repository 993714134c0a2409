package dev.orchestrate.cli;

import java.io.PrintWriter;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The short commands scripts call in loops ({@code status}, {@code stats}, {@code jobs},
 * {@code memory list}, {@code compact}), parsed without picocli. picocli builds the model of the
 * command it runs by reflection over its annotations, interpreted, on every start: 55-75 ms of
 * CPU, the largest share of these commands' start-up (docs/benchmarks.md, issue 19).
 *
 * <p>Only well-formed invocations are recognised: each option of the command at a place picocli
 * accepts it, at most once (the verbosity flag any number of times), with a plain value (not
 * empty, not starting with {@code -} or {@code @}, not a command's name, a number in digits). For
 * those, the same command object picocli would build gets the same fields and runs with the same
 * error handling, so stdout, stderr and the exit code are the same ({@code FastPathTest} runs
 * both). {@code --version} alone prints {@link Version} as picocli would. Anything else (help, completion, a typo, an unknown or repeated option,
 * {@code --}, an {@code @file}, a value picocli might read otherwise) is left to picocli, so its
 * usage messages and suggestions stay exactly as they are.
 */
final class FastPath {
  private FastPath() {
  }

  /**
   * A short command, run with its options set (by picocli or by this class) and the streams to
   * write to: picocli's, or those {@link Cli#execute} gives.
   */
  interface Command {
    int run(PrintWriter out, PrintWriter err);
  }

  /** What the arguments run: the root with the global options and the command with its own. */
  record Invocation(OrchestrateCommand root, Command command) {
    int run(PrintWriter out, PrintWriter err) {
      // As Cli's execution strategy and picocli's execution exception handling.
      ErrorHandler errors = new ErrorHandler(root);
      try {
        root.applyLogLevel();
      } catch (CliException e) {
        return errors.handle(e, err);
      }
      try {
        return command.run(out, err);
      } catch (Exception e) {
        return errors.handle(e, err);
      }
    }
  }

  /** Global options (scope INHERIT: before the command or after it) that take a value. */
  static final Set<String> GLOBAL_VALUED = Cli.ROOT_VALUE_OPTIONS;

  /** Every command and subcommand name: picocli may read such a word as a command, never as a value. */
  static final Set<String> COMMAND_WORDS = commandWords();

  private static Set<String> commandWords() {
    Set<String> words = new HashSet<>(Cli.COMMAND_NAMES);
    words.addAll(Set.of("list", "add", "import", "supersede")); // memory's
    words.add("resume"); // agents'
    return Set.copyOf(words);
  }

  /** The value options of each command (those of {@code memory list} under "memory list"). */
  static final Map<String, Set<String>> VALUED = Map.of("status", Set.of(), "stats", Set.of(),
      "jobs", Set.of("--limit"), "memory list", Set.of("--kind", "--tag"), "compact", Set.of("--keep-recent"));
  /** The flags of each command. */
  static final Map<String, Set<String>> FLAGS = Map.of("status", Set.of("--json"),
      "stats", Set.of("--json", "--check", "--no-sample"), "jobs", Set.of("--json"), "memory list", Set.of("--json"),
      "compact", Set.of("--json", "--dry-run", "--vacuum", "--incremental"));

  /**
   * Runs the arguments when they are a well-formed short command, writing to the streams
   * supplied (asked for only then); empty when picocli must run them.
   */
  static OptionalInt execute(String[] args, Map<String, String> env, Path workingDir, Supplier<PrintWriter> out,
      Supplier<PrintWriter> err) {
    if (isVersion(args)) {
      PrintWriter o = out.get();
      for (String line : Version.lines()) {
        o.println(line);
      }
      o.flush();
      return OptionalInt.of(0);
    }
    Optional<Invocation> invocation = parse(args, env, workingDir);
    if (invocation.isEmpty()) {
      return OptionalInt.empty();
    }
    PrintWriter o = out.get();
    PrintWriter e = err.get();
    int code = invocation.get().run(o, e);
    o.flush();
    e.flush();
    return OptionalInt.of(code);
  }

  /**
   * {@code --version} or {@code -V} alone, or after {@code --state DIR} (which picocli reads and
   * leaves unused): picocli prints the version and nothing else for those.
   */
  static boolean isVersion(String[] args) {
    int i = 0;
    if (args.length == 3 && args[0].equals("--state") && !args[1].isEmpty() && args[1].charAt(0) != '-'
        && args[1].charAt(0) != '@' && !COMMAND_WORDS.contains(args[1])) {
      i = 2;
    }
    return args.length == i + 1 && (args[i].equals("--version") || args[i].equals("-V"));
  }

  /** The invocation these arguments make, when they are one this class recognises. */
  static Optional<Invocation> parse(String[] args, Map<String, String> env, Path workingDir) {
    String command = null; // "status", "memory", "memory list", ...
    String id = null;
    Map<String, String> values = new HashMap<>();
    Set<String> flags = new HashSet<>();
    int verbose = 0;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (arg.isEmpty() || arg.charAt(0) == '@') {
        return Optional.empty(); // picocli reads @FILE as a file of arguments
      }
      if (arg.charAt(0) != '-') {
        if (command == null) {
          if (!VALUED.containsKey(arg) && !arg.equals("memory")) {
            return Optional.empty();
          }
          command = arg;
        } else if (command.equals("memory") && arg.equals("list")) {
          command = "memory list";
        } else if (command.equals("status") && id == null && !COMMAND_WORDS.contains(arg)) {
          id = arg;
        } else {
          return Optional.empty();
        }
        continue;
      }
      if (verbose(arg)) {
        verbose += arg.length() - 1;
        continue;
      }
      if (arg.equals("--verbose")) {
        verbose++;
        continue;
      }
      int eq = arg.indexOf('=');
      String name = arg.startsWith("--") && eq > 0 ? arg.substring(0, eq) : arg;
      boolean global = GLOBAL_VALUED.contains(name);
      boolean valued = global || command != null && VALUED.getOrDefault(command, Set.of()).contains(name);
      if (valued) {
        String value;
        if (eq > 0) {
          value = arg.substring(eq + 1);
        } else if (i + 1 < args.length) {
          value = args[++i];
        } else {
          return Optional.empty();
        }
        if (!plainValue(value) || values.put(name, value) != null) {
          return Optional.empty();
        }
        continue;
      }
      String flag = arg.equals("-q") ? "--quiet" : arg;
      boolean known = flag.equals("--quiet")
          || command != null && FLAGS.getOrDefault(command, Set.of()).contains(flag);
      if (!known || !flags.add(flag)) {
        return Optional.empty();
      }
    }
    if (command == null || command.equals("memory")) {
      return Optional.empty();
    }
    try {
      OrchestrateCommand root = root(env, workingDir, values, flags.contains("--quiet"), verbose);
      return command(command, root, id, values, flags).map(c -> new Invocation(root, c));
    } catch (InvalidPathException e) {
      return Optional.empty(); // picocli reports a path it cannot convert
    }
  }

  /** A value picocli takes as it is: not empty, not option-like, not a command's name, no @FILE. */
  private static boolean plainValue(String value) {
    return !value.isEmpty() && value.charAt(0) != '-' && value.charAt(0) != '@' && !COMMAND_WORDS.contains(value);
  }

  private static OrchestrateCommand root(Map<String, String> env, Path workingDir, Map<String, String> values,
      boolean quiet, int verbose) {
    OrchestrateCommand root = new OrchestrateCommand(env, workingDir);
    root.state = values.get("--state");
    root.logs = path(values.get("--logs"));
    root.config = path(values.get("--config"));
    root.logLevel = values.get("--log-level");
    root.quiet = quiet;
    root.verbose = new boolean[verbose];
    Arrays.fill(root.verbose, true);
    return root;
  }

  private static Path path(String value) {
    return value == null ? null : Path.of(value);
  }

  /** An Integer as picocli converts digits; null when absent, empty when not plain digits. */
  private static Optional<Integer> number(String value) {
    return value == null || !digits(value) ? Optional.empty() : Optional.of(Integer.valueOf(value));
  }

  /*
   * The two shapes below are checked by hand, not by regular expressions: compiling them was about
   * 2 % of a short command's main thread (docs/benchmarks.md).
   */

  /** {@code -v}, {@code -vv}, ...: the regular expression {@code -v+}. */
  static boolean verbose(String arg) {
    if (arg.length() < 2 || arg.charAt(0) != '-') {
      return false;
    }
    for (int i = 1; i < arg.length(); i++) {
      if (arg.charAt(i) != 'v') {
        return false;
      }
    }
    return true;
  }

  /** One to nine ASCII digits: the regular expression {@code [0-9]{1,9}}. */
  static boolean digits(String value) {
    if (value.isEmpty() || value.length() > 9) {
      return false;
    }
    for (int i = 0; i < value.length(); i++) {
      if (value.charAt(i) < '0' || value.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }

  private static Optional<Command> command(String name, OrchestrateCommand root, String id,
      Map<String, String> values, Set<String> flags) {
    boolean json = flags.contains("--json");
    switch (name) {
      case "status" -> {
        StatusCommand c = new StatusCommand();
        c.root = new Root(root);
        c.id = id;
        c.json = json;
        return Optional.of(c);
      }
      case "stats" -> {
        StatsCommand c = new StatsCommand();
        c.root = new Root(root);
        c.output.json = json;
        c.check = flags.contains("--check");
        c.noSample = flags.contains("--no-sample");
        return Optional.of(c);
      }
      case "jobs" -> {
        String limit = values.get("--limit");
        Optional<Integer> n = number(limit);
        if (limit != null && n.isEmpty()) {
          return Optional.empty();
        }
        JobsCommand c = new JobsCommand();
        c.root = new Root(root);
        c.limit = n.orElse(JobsCommand.DEFAULT_LIMIT);
        c.output.json = json;
        return Optional.of(c);
      }
      case "memory list" -> {
        MemoryCommand.ListCommand c = new MemoryCommand.ListCommand();
        c.root = new Root(root);
        c.kind = values.get("--kind");
        c.tag = values.get("--tag");
        c.json = json;
        return Optional.of(c);
      }
      case "compact" -> {
        String keep = values.get("--keep-recent");
        Optional<Integer> k = number(keep);
        if (keep != null && k.isEmpty()) {
          return Optional.empty();
        }
        CompactCommand c = new CompactCommand();
        c.root = new Root(root);
        c.keepRecent = k.orElse(null);
        c.dryRun = flags.contains("--dry-run");
        c.vacuum = flags.contains("--vacuum");
        c.incremental = flags.contains("--incremental");
        c.output.json = json;
        return Optional.of(c);
      }
      default -> {
        return Optional.empty();
      }
    }
  }
}
