package dev.orchestrate.cli;

import dev.orchestrate.app.Reviewing;
import dev.orchestrate.serve.DashboardServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code orchestrate serve}: the read-only dashboard. Parses and checks its flags, then hands
 * over to {@link DashboardServer}, which nothing else loads (start-up of the other commands).
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
    description = {"Serve a read-only dashboard of the state in a browser: overview, items, review (everything "
        + "waiting for a person, with each item's diff, gates and summaries), jobs, growth of every "
        + "bounded structure, memory. Changes nothing; safe while a run is active. Binds 127.0.0.1; binding any "
        + "other address needs an access token (--token, or one generated and printed on stderr). Runs until "
        + "interrupted (Ctrl-C).",
        "With --actions, the item pages also approve, reject and unblock, as the commands of those names do."})
final class ServeCommand implements Callable<Integer> {
  static final int DEFAULT_PORT = 8765;
  static final int MIN_TOKEN_CHARS = 16;

  @Mixin
  Root root;

  @Spec
  CommandSpec spec;

  @Option(names = "--port", paramLabel = "N", defaultValue = "" + DEFAULT_PORT,
      description = "Port to listen on (0: any free port; default: ${DEFAULT-VALUE})")
  int port;

  @Option(names = "--bind", paramLabel = "ADDR", defaultValue = "127.0.0.1",
      description = "Address to listen on (default: ${DEFAULT-VALUE}); any non-loopback address needs a token")
  String bind;

  @Option(names = "--token", paramLabel = "TOKEN",
      description = "Access token the browser must present (at least " + MIN_TOKEN_CHARS + " characters)")
  String token;

  @Option(names = "--actions", description = "Offer approve, reject and unblock on the item pages: each a form posted "
      + "with a secret of this server, taken as the commands take it (the same rules; queued for a running run). Off "
      + "by default. Asks for an access token on loopback too (generated and printed once on stderr unless --token "
      + "gives one); beyond loopback it needs --token")
  boolean actions;

  @Override
  public Integer call() throws IOException, InterruptedException {
    if (port < 0 || port > 65_535) {
      throw CliException.usage("--port must be between 0 and 65535, got " + port);
    }
    if (token != null && (token.length() < MIN_TOKEN_CHARS || !token.chars().allMatch(c -> c > 0x20 && c < 0x7f))) {
      throw CliException.usage("--token must be at least " + MIN_TOKEN_CHARS
          + " printable characters without spaces (or leave it out to have one generated)");
    }
    InetAddress address;
    try {
      address = InetAddress.getByName(bind);
    } catch (UnknownHostException e) {
      throw CliException
          .usage("--bind: unknown address '" + bind + "' (use an IP address such as 127.0.0.1 or 0.0.0.0)");
    }
    if (actions && token == null && !address.isLoopbackAddress()) {
      throw CliException.usage("serve --actions on " + bind + " needs --token: whoever reaches the address could "
          + "approve, reject and unblock (bind 127.0.0.1, or give a token)");
    }
    java.util.function.Supplier<Reviewing.Project> project = null;
    if (actions) {
      ReviewProject.of(root); // a config that cannot be loaded is an error now, not at the first action
      project = () -> ReviewProject.of(root);
    }
    try {
      return DashboardServer.serveUntilStopped(root.command().backend(), new InetSocketAddress(address, port), token,
          project, spec.commandLine().getOut(), spec.commandLine().getErr(), StopSignals::install);
    } catch (IOException e) {
      throw CliException.usage("cannot listen on " + bind + ":" + port + ": " + e.getMessage()
          + " (choose another --port, or 0 for any free one)");
    }
  }
}
