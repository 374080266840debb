"""The event bus: notifications about rows already written (the table is the record)."""
