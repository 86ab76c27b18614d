package io.lodestar.micronaut;

import io.micronaut.context.annotation.Value;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;

/** Answers with the instance's name, so a caller can count which instance served it. */
@Controller("/whoami")
class WhoAmIController {
    private final String name;

    WhoAmIController(@Value("${test.instance-name:unnamed}") String name) {
        this.name = name;
    }

    @Get(produces = MediaType.TEXT_PLAIN)
    String whoami() {
        return name;
    }
}
