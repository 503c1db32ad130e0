"""Playing at a terminal: the text view of the table and the human seat."""
