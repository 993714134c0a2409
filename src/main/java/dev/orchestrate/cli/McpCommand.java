package dev.orchestrate.cli;

import dev.orchestrate.mcp.McpServer;
import dev.orchestrate.mcp.Project;
import dev.orchestrate.mcp.Tools;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Clock;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code orchestrate mcp}: a Model Context Protocol server on stdin and stdout, whose tools read the
 * state and, with {@code --allow-actions}, act on it. Checks the project once (state and config),
 * then hands over to {@link McpServer}, which only this command loads.
 */
@Command(name = "mcp", mixinStandardHelpOptions = true,
    description = {"Serve the Model Context Protocol on stdin and stdout (JSON-RPC, one message a line) for an AI "
        + "assistant such as Claude Code: claude mcp add orchestrate -- orchestrate mcp --config FILE.",
        "Its tools read the state: list_items, show_item, jobs, logs (the end of a job's log), stats, agents. With "
            + "--allow-actions also add_item (to the state, never to the backlog file: the next run takes it), "
            + "approve, reject, unblock and resume_agent (an agent profile's pause), as the commands of those "
            + "names do. Each answer is bounded (a page of items, the end of a log).",
        "Runs until stdin ends. Nothing but protocol messages goes to stdout; logs go to stderr. Safe beside a "
            + "running run (approve and reject queue their decisions for it; unblock is refused then)."},
    footerHeading = "%nExit codes:%n",
    footer = {"  0    stdin ended", "  2    a bad config or state location (checked before serving)"})
final class McpCommand implements Callable<Integer> {
  @Mixin
  Root root;

  @Option(names = "--allow-actions", description = "Offer the tools that change the state (add_item, approve, "
      + "reject, unblock, resume_agent); without it the server only reads")
  boolean allowActions;

  @Override
  public Integer call() throws IOException {
    OrchestrateCommand command = root.command();
    command.loadConfig(null); // a bad config exits 2 now, not at the first tool call
    Project project = new Project(command.backend(), () -> command.loadConfig(null), command::budgetConfig,
        command::checkoutDirectory, Clock.systemUTC());
    String version = McpCommand.class.getPackage().getImplementationVersion();
    // stdout is the protocol's alone: whatever else prints to System.out lands on stderr instead.
    OutputStream protocol = new FileOutputStream(FileDescriptor.out);
    PrintStream stdout = System.out;
    System.setOut(System.err);
    try {
      new McpServer(new Tools(project, allowActions), version == null ? "dev" : version).serve(System.in, protocol);
    } finally {
      System.setOut(stdout);
    }
    return ExitCode.OK;
  }
}
