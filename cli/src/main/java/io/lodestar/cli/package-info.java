/**
 * The {@code lodestar} command line and its web console (docs/cli.md). Not an API: every type is package-private.
 *
 * <ul>
 *   <li>Commands: {@code LodestarCli} (the root command, connection options, exit codes via {@code ExitCodes}),
 *       {@code ConfigCommand}, {@code WatchCommand} (a live terminal view), {@code ConsoleCommand} (starts the
 *       console); output as tables or JSON in {@code Output} and {@code Views}.</li>
 *   <li>Operations the commands and the console share: {@code Configs} (current, version, rollback, list, diff),
 *       {@code Instances} (not-found rules, evict, time left), {@code ServiceWatch} (follows services while someone
 *       watches), {@code Converters}.</li>
 *   <li>The console: {@code ConsoleServer} routes and maps failures to HTTP statuses (over TLS from {@code Tls});
 *       per namespace served, {@code ConsoleNamespace} with {@code ConsoleApi} (the JSON endpoints),
 *       {@code ConsoleEvents} and {@code EventStreams} (the server-sent event stream); {@code RequestGuard},
 *       {@code Users}, {@code AllowedHosts} and {@code Tokens} (who may ask what), {@code AuditLog} and
 *       {@code LogText} (what was changed, by whom, escaped for a log).</li>
 * </ul>
 */
package io.lodestar.cli;
