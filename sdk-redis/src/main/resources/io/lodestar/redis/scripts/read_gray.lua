-- read_gray: reads a config's gray release atomically with its revision counter and the entry's incarnation.
-- Writes nothing. Used by the gray view (first load and resync) and ConfigService.gray.
-- KEYS[1] gray release, KEYS[2] gray revision counter, KEYS[3] the entry's current hash (its :incarnation field, see
-- config_common.lua)
-- Returns {revision (as stored, '0' when none), incarnation ('' when none), release JSON ('' when none)}.
return {redis.call('GET', KEYS[2]) or '0', redis.call('HGET', KEYS[3], ':incarnation') or '',
  redis.call('GET', KEYS[1]) or ''}
