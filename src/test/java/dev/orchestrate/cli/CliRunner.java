package dev.orchestrate.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine;

/** Runs the CLI in-process and captures stdout, stderr and the exit code. */
final class CliRunner {
  record Result(int exitCode, String out, String err) {
  }

  static Result run(Map<String, String> env, String... args) {
    return runIn(Path.of(""), env, args);
  }

  /** As if started in {@code workingDir} (where the project is looked for). */
  static Result runIn(Path workingDir, Map<String, String> env, String... args) {
    // As Cli.execute: the fast path for a well-formed short command, else only the invoked
    // command's model when the arguments name it.
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Cli.execute(args, env, workingDir, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Result(code, out.toString(), err.toString());
  }

  /** Through picocli alone, with every command's model: what {@link FastPath} must behave like. */
  static Result picocli(Path workingDir, Map<String, String> env, String... args) {
    return run(Cli.commandLine(env, workingDir), args);
  }

  private static Result run(CommandLine cl, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args);
    return new Result(code, out.toString(), err.toString());
  }

  static Result run(String... args) {
    return run(Map.of(), args);
  }
}
