package dev.orchestrate.cli;

import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Routes SIGINT and SIGTERM to a stop action instead of killing the JVM, so the run can cancel
 * its agents, record them, print its report and exit 130. The handlers in place before are put
 * back on close.
 */
final class StopSignals implements AutoCloseable {
  private final SignalHandler previousInt;
  private final SignalHandler previousTerm;

  private StopSignals(SignalHandler previousInt, SignalHandler previousTerm) {
    this.previousInt = previousInt;
    this.previousTerm = previousTerm;
  }

  static StopSignals install(Runnable stop) {
    SignalHandler handler = signal -> stop.run();
    return new StopSignals(Signal.handle(new Signal("INT"), handler), Signal.handle(new Signal("TERM"), handler));
  }

  @Override
  public void close() {
    Signal.handle(new Signal("INT"), previousInt);
    Signal.handle(new Signal("TERM"), previousTerm);
  }
}
