"""Speech: rendering announcements to sound. The announcer worker and the pyttsx3 backend build
on :mod:`table.voice.espeak`, the command-line engine every backend falls back to."""
