package dev.orchestrate.cli;

import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import picocli.CommandLine;

/**
 * The entry point: a well-formed short command runs through {@link FastPath}, anything else through
 * the picocli command line {@link Picocli} builds. Names no picocli class but in signatures, so the
 * fast path loads none.
 */
public final class Cli {
  private Cli() {
  }

  /**
   * The root's commands, in the order help lists them ({@link Picocli#commandClass} maps each to
   * its class). Names only: a class literal loads its class, and picocli's own help command is a
   * Java 5 class that a JDK 25 AOT cache cannot hold, so the fast path never names it.
   */
  static final List<String> COMMAND_NAMES = List.of("init", "run", "status", "unblock", "approve",
      "reject", "diff", "jobs", "agents", "logs", "memory",
      "compact", "stats", "serve", "mcp", "version", "help", "completion", "__complete");

  /** Commands that read the other commands' models: help, the completion script, completion itself. */
  private static final Set<String> NEED_ALL = Set.of("help", "completion", "__complete");

  /** The root's options that take a value, and the root's flags, as they may precede the command. */
  static final Set<String> ROOT_VALUE_OPTIONS = Set.of("--state", "--logs", "--config", "--log-level");

  /** Whether these arguments print the version and nothing else (and so log nothing). */
  public static boolean printsVersionOnly(String[] args) {
    return FastPath.isVersion(args);
  }

  /**
   * Runs the arguments: a well-formed short command through {@link FastPath} (no picocli model at
   * all), anything else through picocli, building only the invoked command's model when it can.
   */
  public static int execute(String[] args, Map<String, String> env) {
    OptionalInt fast = FastPath.execute(args, env, Path.of(""), () -> writer(System.out, "sun.stdout.encoding"),
        () -> writer(System.err, "sun.stderr.encoding"));
    return fast.isPresent() ? fast.getAsInt() : commandLine(env, Path.of(""), invoked(args)).execute(args);
  }

  /** As {@link #execute(String[], Map)}, started in {@code workingDir} and writing to {@code out} and {@code err}. */
  static int execute(String[] args, Map<String, String> env, Path workingDir, PrintWriter out, PrintWriter err) {
    OptionalInt fast = FastPath.execute(args, env, workingDir, () -> out, () -> err);
    if (fast.isPresent()) {
      return fast.getAsInt();
    }
    CommandLine cl = commandLine(env, workingDir, invoked(args));
    cl.setOut(out);
    cl.setErr(err);
    return cl.execute(args);
  }

  /** A stream's writer as picocli makes its own: the console's encoding when the JVM knows it, auto-flushing. */
  static PrintWriter writer(java.io.OutputStream stream, String encodingProperty) {
    String name = System.getProperty(encodingProperty);
    Charset charset = Charset.defaultCharset();
    if (name != null) {
      try {
        charset = Charset.forName("cp65001".equalsIgnoreCase(name) ? "UTF-8" : name);
      } catch (RuntimeException e) {
        // picocli falls back to the default charset, too
      }
    }
    return new PrintWriter(new BufferedWriter(new OutputStreamWriter(stream, charset)), true);
  }

  public static CommandLine commandLine(Map<String, String> env) {
    return commandLine(env, Path.of(""));
  }

  /** As if started in {@code workingDir}: where the project is looked for (tests use their own). */
  public static CommandLine commandLine(Map<String, String> env, Path workingDir) {
    return commandLine(env, workingDir, Optional.empty());
  }

  /**
   * The subcommand these arguments run, when that is certain without parsing: the first argument
   * after the root's own options names one, and it needs no other command's model. Empty (build
   * them all) for anything else: no command, help, an unknown option or a mistyped command, so
   * that usage, help and did-you-mean see every command.
   */
  static Optional<String> invoked(String[] args) {
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (ROOT_VALUE_OPTIONS.contains(arg)) {
        i++;
      } else if (arg.startsWith("-")) {
        int eq = arg.indexOf('=');
        boolean valued = eq > 0 && ROOT_VALUE_OPTIONS.contains(arg.substring(0, eq));
        if (!valued && !rootFlags(arg)) {
          return Optional.empty();
        }
      } else {
        return COMMAND_NAMES.contains(arg) && !NEED_ALL.contains(arg) ? Optional.of(arg) : Optional.empty();
      }
    }
    return Optional.empty();
  }

  /**
   * The root's flags: {@code --verbose}, {@code --quiet}, or {@code -} and any cluster of {@code v} and
   * {@code q} (the regular expression {@code -[vq]+|--verbose|--quiet}, checked without compiling one
   * on every command's path).
   */
  static boolean rootFlags(String arg) {
    if (arg.equals("--verbose") || arg.equals("--quiet")) {
      return true;
    }
    if (arg.length() < 2 || arg.charAt(0) != '-') {
      return false;
    }
    for (int i = 1; i < arg.length(); i++) {
      if (arg.charAt(i) != 'v' && arg.charAt(i) != 'q') {
        return false;
      }
    }
    return true;
  }

  static CommandLine commandLine(Map<String, String> env, Path workingDir, Optional<String> only) {
    return Picocli.commandLine(env, workingDir, only);
  }
}
