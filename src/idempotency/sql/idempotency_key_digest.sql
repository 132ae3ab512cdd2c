-- The key of an idempotency record in its day's unique index: the first 16 bytes of the SHA-256 of
-- (owner, "/", key), as a uuid. An index entry is 24 bytes where the two texts took about 70
-- (ensure_partitions.sql makes the index, an expression index: the heap keeps no copy of it).
-- The index is the backstop against a second record of one (owner, key) (idempotency_finish.sql);
-- a lookup goes through it and still compares both texts (idempotency_record.sql), so a collision
-- of two digests could only make a second record wait or fail (409), never answer another's.
-- A UPI ID holds no "/", so distinct pairs hash distinct strings. The text's bytes are its
-- database encoding's, read by decode(..., 'escape') once every backslash is doubled: built-in
-- immutable functions only, so the planner inlines this into the index and every lookup.
-- Never change the result for a given pair: each day's index holds digests made by this body.
CREATE OR REPLACE FUNCTION idempotency_key_digest(p_owner text, p_idempotency_key text) RETURNS uuid
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN encode(substr(sha256(decode(replace(p_owner || '/' || p_idempotency_key, '\', '\\'), 'escape')), 1, 16),
              'hex')::uuid;
