package dev.orchestrate.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;

/**
 * Runs several command lines in one fresh JVM and prints their stdout separated by
 * {@link #SEPARATOR} lines: maps built with {@code Map.of} iterate in an order that changes from
 * one JVM to the next, never within one, so key order is only tested across JVMs.
 * Arguments: command lines separated by {@code ;;}.
 */
public final class JsonRound {
  static final String SEPARATOR = "---8<---";

  private JsonRound() {
  }

  public static void main(String[] args) {
    List<List<String>> commands = new ArrayList<>();
    List<String> current = new ArrayList<>();
    for (String arg : args) {
      if (arg.equals(";;")) {
        commands.add(current);
        current = new ArrayList<>();
      } else {
        current.add(arg);
      }
    }
    commands.add(current);
    StringBuilder all = new StringBuilder();
    for (List<String> command : commands) {
      CommandLine cl = Cli.commandLine(Map.of());
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      cl.setOut(new PrintWriter(out, true));
      cl.setErr(new PrintWriter(err, true));
      int code = cl.execute(command.toArray(String[]::new));
      if (code != 0) {
        throw new IllegalStateException(command + " exited " + code + ": " + err + Arrays.toString(args));
      }
      all.append(out).append(SEPARATOR).append('\n');
    }
    System.out.print(all);
  }
}
