package dev.orchestrate.cli;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.orchestrate.cli.live.TerminalText;

/**
 * A log line's message through {@link TerminalText#safe}: log messages quote agents and
 * summarizers (an error's text, a command's output), and stderr is often a terminal. Public for
 * logback, which creates it by name ({@code %safeMsg} in {@link LogConfigurator}'s pattern).
 */
public final class SafeMessageConverter extends ClassicConverter {
  @Override
  public String convert(ILoggingEvent event) {
    return TerminalText.safe(event.getFormattedMessage());
  }
}
