package dev.orchestrate.cli;

import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Routes SIGINT and SIGTERM to a stop action instead of killing the JVM, so the run can cancel
 * its agents, record them, print its report and exit 130. The handlers in place before are put
 * back on close.
 *
 * <p>{@code sun.misc.Signal} is the JDK's only supported way to handle a signal (module
 * {@code jdk.unsupported}, kept for exactly this use; there is no public replacement). So this
 * class is where the build's remaining compile warnings come from ("internal proprietary API"):
 * javac 17 reports them unconditionally, {@code @SuppressWarnings} cannot silence them, and
 * hiding the use behind reflection would only make it harder to see. They are expected here and
 * nowhere else.
 */
final class StopSignals implements AutoCloseable {
  private final SignalHandler previousInt;
  private final SignalHandler previousTerm;
  private final SignalHandler previousHup;

  private StopSignals(SignalHandler previousInt, SignalHandler previousTerm, SignalHandler previousHup) {
    this.previousInt = previousInt;
    this.previousTerm = previousTerm;
    this.previousHup = previousHup;
  }

  /**
   * Also SIGHUP (the terminal closed): agents run in sessions of their own, so the hangup no
   * longer reaches them; the run stops them itself. Under nohup the JVM keeps HUP ignored.
   */
  static StopSignals install(Runnable stop) {
    SignalHandler handler = signal -> stop.run();
    return new StopSignals(Signal.handle(new Signal("INT"), handler), Signal.handle(new Signal("TERM"), handler),
        hangup(handler));
  }

  /**
   * Whether SIGINT reaches no handler: a process started with it ignored (by {@code nohup} in a
   * script, or as a script's background job, which POSIX shells start with SIGINT and SIGQUIT
   * ignored) keeps it ignored, and the JVM cannot install a handler for it. SIGTERM still works.
   */
  boolean interruptIgnored() {
    return previousInt == SignalHandler.SIG_IGN;
  }

  private static SignalHandler hangup(SignalHandler handler) {
    try {
      return Signal.handle(new Signal("HUP"), handler);
    } catch (IllegalArgumentException e) {
      return null; // no SIGHUP here (or the JVM reserves it): nothing to route
    }
  }

  @Override
  public void close() {
    Signal.handle(new Signal("INT"), previousInt);
    Signal.handle(new Signal("TERM"), previousTerm);
    if (previousHup != null) {
      Signal.handle(new Signal("HUP"), previousHup);
    }
  }
}
