/* Rule 118_1a (rwlocks). */
typedef struct rwlock { int lock; } rwlock_t;
void _read_lock(rwlock_t *l);
void _read_unlock(rwlock_t *l);
void _write_lock(rwlock_t *l);
void _write_unlock(rwlock_t *l);
int _read_trylock(rwlock_t *l);
int _write_trylock(rwlock_t *l);
rwlock_t rw;

void bad_ReadUnderWrite(void) { _write_lock(&rw); _read_lock(&rw); }
void safe_ReadUnderWrite(void) { _read_lock(&rw); _read_lock(&rw); _read_unlock(&rw); _read_unlock(&rw); }
void bad_DoubleWrite(void) { _write_lock(&rw); if (_write_trylock(&rw)) _write_unlock(&rw); }
void safe_DoubleWrite(void) { if (_write_trylock(&rw)) _write_unlock(&rw); _write_lock(&rw); _write_unlock(&rw); }
void bad_ReadUnlock(void) { _read_unlock(&rw); }
void safe_ReadUnlock(void) { if (_read_trylock(&rw)) _read_unlock(&rw); }
void bad_WriteUnlock(void) { _write_lock(&rw); _write_unlock(&rw); _write_unlock(&rw); }
void safe_WriteUnlock(void) { _write_lock(&rw); _write_unlock(&rw); }
void bad_ReadAtExit(void) { _read_lock(&rw); }
void safe_ReadAtExit(void) { _read_lock(&rw); _read_unlock(&rw); }
void bad_WriteAtExit(void) { _write_lock(&rw); }
void safe_WriteAtExit(void) { _write_lock(&rw); _write_unlock(&rw); }
int main(void) { return 0; }
